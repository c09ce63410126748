// GJS (ES module) test of the override's execute_async (bindings/gjs/Executorch.js):
// with no callback it returns a Promise, the cancellable may be left out, the
// callback form still works, and so does code that calls Gio._promisify itself.
import Gio from 'gi://Gio';
import Executorch from 'gi://Executorch?version=1.0';

import {check, models, run} from './harness.js';

function loadAdd(a, b) {
    const method = Executorch.Program.new_from_file(`${models}/add/add.pte`).load_method('forward');
    method.set_input(0, Executorch.Tensor.new_from_floats([2, 3], a));
    method.set_input(1, Executorch.Tensor.new_from_floats([2, 3], b));
    return method;
}

async function rejection(promise) {
    try {
        await promise;
    } catch (e) {
        return e;
    }
    return null;
}

async function main() {
    const a = [1, 2, 3, 4, 5, 6], b = [6, 5, 4, 3, 2, 1];
    const method = loadAdd(a, b);

    // No cancellable, no callback: a Promise of execute_finish's result.
    const pending = method.execute_async();
    check(pending instanceof Promise, 'execute_async() returns a Promise');
    check(await pending === true, 'it resolves to true');
    check(method.get_output(0).get_floats().every(v => v === 7), 'the outputs are there once it resolves');

    // An explicit null cancellable is the same.
    check(await method.execute_async(null) === true, 'execute_async(null) resolves to true');

    // While it runs the method is busy; a second execution is refused.
    const first = method.execute_async();
    const second = await rejection(method.execute_async());
    check(second?.matches(Executorch.error_quark(), Executorch.Error.INVALID_STATE),
        `a second execution while one runs rejects with INVALID_STATE: ${second}`);
    check(await first === true, 'the first one still resolves');

    // A cancelled execution rejects with G_IO_ERROR_CANCELLED.
    const cancellable = new Gio.Cancellable();
    cancellable.cancel();
    const cancelled = await rejection(method.execute_async(cancellable));
    check(cancelled?.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED),
        `a cancelled execution rejects with CANCELLED: ${cancelled}`);

    // The callback form is unchanged: no Promise, the callback calls execute_finish.
    const viaCallback = await new Promise((resolve, reject) => {
        const returned = method.execute_async(null, (source, result) => {
            try {
                resolve([returned, source === method, source.execute_finish(result)]);
            } catch (e) {
                reject(e);
            }
        });
    });
    check(viaCallback[0] === undefined && viaCallback[1] && viaCallback[2] === true,
        `with a callback nothing is returned and the callback finishes it: ${viaCallback}`);

    // Code written for plain GJS, promisifying by hand, keeps working.
    Gio._promisify(Executorch.Method.prototype, 'execute_async', 'execute_finish');
    check(await method.execute_async(null) === true, 'after Gio._promisify, execute_async(null) resolves');
    check(await method.execute_async() === true, 'after Gio._promisify, execute_async() resolves');
}

run(main);
