// Vala test: execute_async's cancellable defaults to null in the VAPI
// (gir/Executorch-1.0.metadata), so `yield method.execute_async ()` compiles,
// and the execution gives the right numbers.
async int run_add (string models) {
    try {
        var program = new Executorch.Program.from_file (models + "/add/add.pte");
        var method = program.load_method ("forward");
        int64[] sizes = { 2, 3 };
        float[] a = { 1, 2, 3, 4, 5, 6 };
        float[] b = { 0.5f, -1, 2.5f, 0, 10, -6 };
        method.set_input (0, new Executorch.Tensor.from_floats (sizes, a));
        method.set_input (1, new Executorch.Tensor.from_floats (sizes, b));
        if (!yield method.execute_async ()) {
            stderr.printf ("execute_async () returned false\n");
            return 1;
        }
        var got = method.get_output (0).get_floats ();
        for (int i = 0; i < a.length; i++) {
            if (got[i] != a[i] + b[i]) {
                stderr.printf ("element %d: got %f, expected %f\n", i, got[i], a[i] + b[i]);
                return 1;
            }
        }
        // A cancelled execution still throws CANCELLED.
        var cancellable = new Cancellable ();
        cancellable.cancel ();
        try {
            yield method.execute_async (cancellable);
            stderr.printf ("a cancelled execution did not throw\n");
            return 1;
        } catch (IOError.CANCELLED e) {
        }
    } catch (Error e) {
        stderr.printf ("%s\n", e.message);
        return 1;
    }
    print ("2 passed, 0 failed\n");
    return 0;
}

int main (string[] args) {
    var loop = new MainLoop ();
    int status = 1;
    run_add.begin (args[1], (obj, res) => {
        status = run_add.end (res);
        loop.quit ();
    });
    loop.run ();
    return status;
}
