// Vala test: the VAPI compiles and a fixture runs with the right numbers.
int main (string[] args) {
    try {
        var program = new Executorch.Program.from_file (args[1] + "/add/add.pte");
        var method = program.load_method ("forward");
        int64[] sizes = { 2, 3 };
        float[] a = { 1, 2, 3, 4, 5, 6 };
        float[] b = { 6, 5, 4, 3, 2, 1 };
        Executorch.Tensor[] inputs = {
            new Executorch.Tensor.from_floats (sizes, a),
            new Executorch.Tensor.from_floats (sizes, b)
        };
        var outputs = method.run (inputs, null);
        var got = outputs[0].get_floats ();
        for (int i = 0; i < a.length; i++) {
            if ((got[i] - (a[i] + b[i])).abs () > 1e-6) {
                stderr.printf ("element %d: got %f\n", i, got[i]);
                return 1;
            }
        }
    } catch (Error e) {
        stderr.printf ("%s\n", e.message);
        return 1;
    }
    print ("1 passed, 0 failed\n");
    return 0;
}
