// Vala test of executorch-llm.vapi (gir/ExecutorchLlm-1.0.metadata): `yield
// generator.generate_async (prompt, config)` with the cancellable left out
// gives upstream's greedy text of a tiny llama fixture, streamed through the
// ::text signal; `generate (prompt)` takes the defaults.
//   test-llm-vala MANIFEST.json
async int run_fixture (string manifest_path) {
    try {
        var parser = new Json.Parser ();
        parser.load_from_file (manifest_path);
        var manifest = parser.get_root ().get_object ();
        var here = Path.get_dirname (manifest_path);
        Json.Object? fixture = null;
        foreach (var node in manifest.get_array_member ("fixtures").get_elements ()) {
            if (!node.get_object ().has_member ("needs")) {
                fixture = node.get_object ();
                break;
            }
        }
        var test_case = fixture.get_array_member ("cases").get_object_element (0);
        var prompt = test_case.get_string_member ("prompt");
        var expected = test_case.get_string_member ("text");
        var max_new_tokens = (int) manifest.get_int_member ("max_new_tokens");

        var tokenizer = new ExecutorchLlm.Tokenizer.from_file (Path.build_filename (here, manifest.get_string_member ("tokenizer")));
        var generator = new ExecutorchLlm.Generator (Path.build_filename (here, fixture.get_string_member ("pte")), null, tokenizer);
        var config = new ExecutorchLlm.GenerationConfig ();
        config.max_new_tokens = max_new_tokens;
        config.temperature = 0;

        var streamed = new StringBuilder ();
        var handler = generator.text.connect ((piece) => streamed.append (piece));
        var text = yield generator.generate_async (prompt, config);
        generator.disconnect (handler);
        if (text != expected || streamed.str != expected) {
            stderr.printf ("generate_async: \"%s\" (streamed \"%s\"), upstream: \"%s\"\n", text, streamed.str, expected);
            return 1;
        }
        if (generator.get_stats ().num_generated_tokens != max_new_tokens - 1) {
            stderr.printf ("generated_tokens %" + int64.FORMAT + "\n", generator.get_stats ().num_generated_tokens);
            return 1;
        }
        // The conversation goes on: the default config (no limit) runs to the end of the context.
        var more = generator.generate (" and");
        if (generator.stop_reason != ExecutorchLlm.StopReason.CONTEXT_FULL && generator.stop_reason != ExecutorchLlm.StopReason.EOS) {
            stderr.printf ("generate with the defaults stopped for %s (\"%s\")\n", generator.stop_reason.to_string (), more);
            return 1;
        }
        generator.reset ();
        try {
            var cancellable = new Cancellable ();
            cancellable.cancel ();
            yield generator.generate_async (prompt, config, cancellable);
            stderr.printf ("a cancelled generation did not throw\n");
            return 1;
        } catch (IOError.CANCELLED e) {
        }
        print ("generate_async: \"%s\"\n", text);
        return 0;
    } catch (Error e) {
        stderr.printf ("%s\n", e.message);
        return 1;
    }
}

int main (string[] args) {
    var loop = new MainLoop ();
    int status = 1;
    run_fixture.begin (args[1], (obj, res) => {
        status = run_fixture.end (res);
        loop.quit ();
    });
    loop.run ();
    return status;
}
