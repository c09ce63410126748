// GJS test: load a fixture through the typelib, run it, check the numbers.
imports.gi.versions.Executorch = '1.0';
const {Executorch, GLib} = imports.gi;

const models = GLib.getenv('TEST_MODELS_DIR');
const program = Executorch.Program.new_from_file(`${models}/add/add.pte`);
const method = program.load_method('forward');
const a = [1, 2, 3, 4, 5, 6];
const b = [0.5, -1, 2.5, 0, 10, -6];
const outputs = method.run([
    Executorch.Tensor.new_from_floats([2, 3], a),
    Executorch.Tensor.new_from_floats([2, 3], b),
], null);
const got = outputs[0].get_floats();
for (let i = 0; i < a.length; i++) {
    if (Math.abs(got[i] - (a[i] + b[i])) > 1e-6)
        throw new Error(`element ${i}: got ${got[i]}, expected ${a[i] + b[i]}`);
}
let raised = false;
try {
    Executorch.Program.new_from_file(`${models}/does-not-exist.pte`);
} catch (e) {
    raised = true;
}
if (!raised)
    throw new Error('loading a missing file did not raise');
print('1 passed, 0 failed');
