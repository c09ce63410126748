// GJS (ES module) test: a Float32Array in, a Float32Array out, and the
// execution run asynchronously as a Promise (the override, bindings/gjs).
import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import Executorch from 'gi://Executorch?version=1.0';

import {check, models, run} from './harness.js';

function tensorFromFloat32(shape, values) {
    const bytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    return Executorch.Tensor.new(Executorch.ScalarType.FLOAT, shape, new GLib.Bytes(bytes));
}

function float32FromTensor(tensor) {
    const bytes = tensor.get_bytes().toArray().slice();
    return new Float32Array(bytes.buffer, 0, bytes.byteLength / 4);
}

async function main() {
    const program = Executorch.Program.new_from_file(`${models}/add/add.pte`);
    const method = program.load_method('forward');
    const a = new Float32Array([1, 2, 3, 4, 5, 6]);
    const b = new Float32Array([0.5, -1, 2.5, 0, 10, -6]);

    // Synchronous, through run().
    const [out] = method.run([tensorFromFloat32([2, 3], a), tensorFromFloat32([2, 3], b)], null);
    const got = float32FromTensor(out);
    check(got instanceof Float32Array && got.length === 6, 'the output reads back as 6 floats');
    check(got.every((v, i) => v === a[i] + b[i]), `sync a + b, got ${got}`);
    check(Array.from(out.get_sizes()).join() === '2,3', 'output sizes');

    // Asynchronous: execute_async returns a Promise; the method is busy until it settles.
    method.set_input(0, tensorFromFloat32([2, 3], b));
    method.set_input(1, tensorFromFloat32([2, 3], b));
    const pending = method.execute_async(null);
    check(pending instanceof Promise, 'execute_async returns a Promise');
    let busy = null;
    try {
        method.set_input(0, tensorFromFloat32([2, 3], a));
    } catch (e) {
        busy = e;
    }
    check(busy !== null && busy.matches(Executorch.error_quark(), Executorch.Error.INVALID_STATE),
        'binding an input while executing fails with INVALID_STATE');
    check(await pending === true, 'the promise resolves to true');
    const doubled = float32FromTensor(method.get_output(0));
    check(doubled.every((v, i) => v === 2 * b[i]), `async b + b, got ${doubled}`);

    // A cancelled execution rejects with G_IO_ERROR_CANCELLED.
    const cancellable = new Gio.Cancellable();
    cancellable.cancel();
    let rejected = null;
    try {
        await method.execute_async(cancellable);
    } catch (e) {
        rejected = e;
    }
    check(rejected !== null && rejected.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED),
        'a cancelled execution rejects with CANCELLED');

    // The bundled example model matches its expected output.
    const example = Executorch.Program.new_from_file(GLib.getenv('EXAMPLE_MODEL'));
    const forward = example.load_method('forward');
    const x = new Float32Array(8).map((_, i) => 0.1 * i);
    forward.set_input(0, tensorFromFloat32([1, 8], x));
    await forward.execute_async(null);
    const scores = float32FromTensor(forward.get_output(0));
    check(scores.length === 3 && Math.abs(scores.reduce((s, v) => s + v, 0) - 1) < 1e-5,
        `example scores sum to 1: ${scores}`);
}

run(main);
