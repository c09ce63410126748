// The GJS ES-module tests' harness: the fixtures' folder, check() counting
// passed checks, and run() awaiting the test's async main in a main loop
// (with a timeout) and exiting with its status.
import GLib from 'gi://GLib';
import System from 'system';

export const models = GLib.getenv('TEST_MODELS_DIR');
let passed = 0;

export function check(condition, what) {
    if (!condition)
        throw new Error(`failed: ${what}`);
    passed++;
}

export function run(main, timeoutSeconds = 60) {
    const loop = new GLib.MainLoop(null, false);
    let status = 0;
    GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, timeoutSeconds, () => {
        printerr('timed out');
        status = 1;
        loop.quit();
        return GLib.SOURCE_REMOVE;
    });
    main().then(() => print(`${passed} passed, 0 failed`), e => {
        printerr(e.stack ?? e);
        status = 1;
    }).finally(() => loop.quit());
    loop.run();
    System.exit(status);
}
