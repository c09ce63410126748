// GJS test: objects built with `new` from their properties (g_object_new, no
// Gio.Initable.init) load as they are made, or report why as a GLib.Error.
imports.gi.versions.Executorch = '1.0';
const {Executorch, Gio, GLib} = imports.gi;

const models = GLib.getenv('TEST_MODELS_DIR');
let passed = 0;

function check(condition, what) {
    if (!condition)
        throw new Error(what);
    passed++;
}

// Throws unless call() throws a GLib.Error of domain and code; returns it.
function expectError(call, domain, code, what) {
    try {
        call();
    } catch (e) {
        check(e instanceof GLib.Error && e.matches(domain, code), `${what}: wrong error ${e}`);
        return e;
    }
    throw new Error(`${what}: no error`);
}

// A program from its path: methods listed, one loaded and run.
const program = new Executorch.Program({path: `${models}/add/add.pte`});
const names = program.list_methods();
check(names !== null && names.length === 1 && names[0] === 'forward', `list_methods gave ${names}`);
const method = program.load_method('forward');
const ones = Executorch.Tensor.new_from_floats([2, 3], [1, 1, 1, 1, 1, 1]);
const sums = method.run([ones, ones], null)[0].get_floats();
check(sums.every(x => x === 2), `1 + 1 gave ${sums}`);
check(program.init(null), 'init of a loaded program failed');

// A method and a bundled program from their properties.
const byProperties = new Executorch.Method({program, name: 'forward'});
check(byProperties.get_n_inputs() === 2, 'a method from properties has no inputs');
const bundled = new Executorch.BundledProgram({path: `${models}/bundled/add_bp.bpte`});
check(bundled.verify('forward', 0, 1e-5, 1e-8), 'the bundled test case failed');

// A missing file: `new` throws G_IO_ERROR_NOT_FOUND naming it (the override
// asks Gio.Initable.init for the constructor's failure).
const e1 = expectError(() => new Executorch.Program({path: `${models}/does-not-exist.pte`}), Gio.IOErrorEnum,
    Gio.IOErrorEnum.NOT_FOUND, 'new Program');
check(e1.message.endsWith('does-not-exist.pte: No such file or directory'), e1.message);

// Nothing to load: INVALID_ARGUMENT saying what to set.
const e2 = expectError(() => new Executorch.Program(), Executorch.Error, Executorch.Error.INVALID_ARGUMENT,
    'no path');
check(e2.message === 'the program has nothing to load: set its “path” or its “bytes”', e2.message);

// A method that does not exist, and a bundled program that is missing.
expectError(() => new Executorch.Method({program, name: 'nope'}), Executorch.Error, Executorch.Error.NOT_FOUND,
    'new Method of a missing name');
expectError(() => new Executorch.BundledProgram({path: `${models}/nope.bpte`}), Gio.IOErrorEnum,
    Gio.IOErrorEnum.NOT_FOUND, 'new BundledProgram');

print(`${passed} passed, 0 failed`);
