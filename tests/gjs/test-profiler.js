// GJS test: profile a method and verify a bundled program through the typelib.
imports.gi.versions.Executorch = '1.0';
const {Executorch, GLib} = imports.gi;

const models = GLib.getenv('TEST_MODELS_DIR');
const program = Executorch.Program.new_from_file(`${models}/add/add.pte`);
const method = program.load_method_profiled('forward');
method.run([
    Executorch.Tensor.new_from_floats([2, 3], [1, 2, 3, 4, 5, 6]),
    Executorch.Tensor.new_from_floats([2, 3], [1, 1, 1, 1, 1, 1]),
], null);
const events = method.get_profile_events();
const names = events.map(e => e.get_name());
if (names[0] !== 'Method::load' || !names.includes('Method::execute'))
    throw new Error(`unexpected events: ${names}`);
const ops = events.filter(e => e.get_instruction_index() >= 0);
if (ops.length === 0 || ops.some(e => e.get_duration() < 0 || e.get_delegate() !== null))
    throw new Error('no operator events');
const etdump = method.get_etdump().get_data();
if (String.fromCharCode(...etdump.slice(8, 12)) !== 'ED00')
    throw new Error('ETDump has no ED00 identifier');

const bundled = Executorch.BundledProgram.new_from_file(`${models}/bundled/add_bp.bpte`);
const n = bundled.get_n_test_cases('forward');
for (let i = 0; i < n; i++) {
    if (!bundled.verify('forward', i, 1e-5, 1e-8))
        throw new Error(`case ${i} failed`);
}
print(`${events.length} events, ${n} bundled cases verified`);
