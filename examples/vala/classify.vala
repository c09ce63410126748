/* classify.vala: a tiny command-line classifier on an ExecuTorch program.
 *
 *   executorch-classify-vala [MODEL.pte] [INPUT.npy]
 *
 * Reads a float32 .npy input (or makes one from the input's declared
 * shape), runs "forward" asynchronously and prints the top class and its
 * score.  Built against the Executorch-1.0 VAPI; no GTK.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* A minimal .npy reader: little-endian float32 in C order. */
Executorch.Tensor read_npy (string path) throws Error {
    uint8[] contents;
    FileUtils.get_data (path, out contents);
    if (contents.length < 10 || contents[0] != 0x93 || Memory.cmp (&contents[1], "NUMPY", 5) != 0)
        throw new FileError.INVAL ("%s: not a .npy file", path);
    uint major = contents[6];
    size_t start = major == 1 ? 10 : 12;
    size_t header_len = major == 1 ? (contents[8] | contents[9] << 8)
                                   : (contents[8] | contents[9] << 8 | contents[10] << 16 | contents[11] << 24);
    if (start + header_len > contents.length)
        throw new FileError.INVAL ("%s: truncated header", path);
    /* The magic holds a NUL byte: copy the header out by length. */
    string header = ((string) ((char*) contents + start)).substring (0, (long) header_len);
    if (!("'<f4'" in header) || "'fortran_order': True" in header)
        throw new FileError.INVAL ("%s: only C-ordered little-endian float32 is read here", path);
    MatchInfo match;
    if (!/'shape': \(([^)]*)\)/.match (header, 0, out match))
        throw new FileError.INVAL ("%s: no shape in the header", path);
    int64[] sizes = {};
    foreach (var part in match.fetch (1).split (",")) {
        if (part.strip () != "")
            sizes += int64.parse (part.strip ());
    }
    var data = new Bytes (contents[start + header_len:contents.length]);
    return new Executorch.Tensor (Executorch.ScalarType.FLOAT, sizes, data);
}

/* An input from the method's declared shape, with fixed values. */
Executorch.Tensor make_input (Executorch.Method method) throws Error {
    var info = method.get_info ().get_input (0);
    var sizes = info.get_sizes ();
    int64 n = 1;
    foreach (var s in sizes)
        n *= s;
    var values = new float[n];
    for (int i = 0; i < n; i++)
        values[i] = (float) Math.sin (i);
    return new Executorch.Tensor.from_floats (sizes, values);
}

async int classify (string model_path, string? input_path) {
    try {
        var program = new Executorch.Program.from_file (model_path);
        var method = program.load_method ("forward");
        var input = input_path != null ? read_npy (input_path) : make_input (method);
        method.set_input (0, input);
        yield method.execute_async ();
        var scores = method.get_output (0).get_floats ();
        if (scores.length == 0)
            throw new Executorch.Error.INVALID_ARGUMENT ("the model gave no scores");
        int top = 0;
        for (int i = 1; i < scores.length; i++) {
            if (scores[i] > scores[top])
                top = i;
        }
        print ("class %d score %.4f\n", top, scores[top]);
        return 0;
    } catch (Error e) {
        printerr ("classify: %s\n", e.message);
        return 1;
    }
}

int main (string[] args) {
    string model_path = args.length > 1 ? args[1] : "data/models/example.pte";
    string? input_path = args.length > 2 ? args[2] : null;
    var loop = new MainLoop ();
    int status = 1;
    classify.begin (model_path, input_path, (obj, res) => {
        status = classify.end (res);
        loop.quit ();
    });
    loop.run ();
    return status;
}
