// classify.js: runs the bundled example classifier from GJS (an ES module).
//
//   gjs -m examples/gjs/classify.js [MODEL.pte [INPUT.npy]]
//
// Reads a Float32 .npy input (or makes one), runs the "forward" method
// asynchronously and prints the top class and its score.  The typed arrays
// and the Promise from execute_async() come from the GJS override that is
// installed with the typelib (docs/getting-started.md).
// SPDX-License-Identifier: LGPL-2.1-or-later
import GLib from 'gi://GLib';
import Executorch from 'gi://Executorch?version=1.0';
import System from 'system';

// A minimal .npy reader: little-endian float32, C order.
function readNpyFloat32(path) {
    const [, contents] = GLib.file_get_contents(path);
    const magic = new TextDecoder().decode(contents.subarray(1, 6));
    if (contents[0] !== 0x93 || magic !== 'NUMPY')
        throw new Error(`${path}: not a .npy file`);
    const major = contents[6];
    const view = new DataView(contents.buffer, contents.byteOffset);
    const headerLen = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
    const start = major === 1 ? 10 : 12;
    const header = new TextDecoder().decode(contents.subarray(start, start + headerLen));
    if (!header.includes("'<f4'") || header.includes("'fortran_order': True"))
        throw new Error(`${path}: only C-ordered little-endian float32 is read here`);
    const shape = header.match(/'shape': \(([^)]*)\)/)[1].split(',')
        .map(s => s.trim()).filter(s => s.length > 0).map(Number);
    // Copy into an aligned Float32Array.
    const data = contents.slice(start + headerLen);
    return {shape, values: new Float32Array(data.buffer, 0, data.byteLength / 4)};
}

async function classify(method, shape, values, cancellable = null) {
    method.set_input(0, Executorch.Tensor.new_from_typed_array(shape, values));
    await method.execute_async(cancellable);
    const scores = method.get_output(0).to_typed_array();   // a Float32Array
    let top = 0;
    for (let i = 1; i < scores.length; i++) {
        if (scores[i] > scores[top])
            top = i;
    }
    return {top, score: scores[top], scores};
}

async function main(args) {
    const here = GLib.path_get_dirname(GLib.filename_from_uri(import.meta.url)[0]);
    const modelPath = args[0] ?? GLib.build_filenamev([here, '..', '..', 'data', 'models', 'example.pte']);
    const program = Executorch.Program.new_from_file(modelPath);
    const method = program.load_method('forward');
    let input;
    if (args[1]) {
        input = readNpyFloat32(args[1]);
    } else {
        const info = method.get_info().get_input(0);
        const shape = Array.from(info.get_sizes());
        const n = shape.reduce((a, b) => a * b, 1);
        input = {shape, values: Float32Array.from({length: n}, (_, i) => Math.sin(i))};
    }
    const {top, score} = await classify(method, input.shape, input.values);
    print(`class ${top} score ${score.toFixed(4)}`);
}

const loop = new GLib.MainLoop(null, false);
let status = 0;
main(ARGV).catch(e => {
    printerr(`classify: ${e.message}`);
    status = 1;
}).finally(() => loop.quit());
loop.run();
System.exit(status);
