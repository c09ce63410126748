/* test-generate.vala: ExecutorchLlm from Vala (executorch-llm.vapi)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: test-generate-vala MODEL.pte TOKENIZER.json
 * `yield generator.generate_async (...)` with the signals: as many tokens
 * as asked for, the pieces joined are the text returned, and a generator
 * for a program without metadata throws GeneratorError.INVALID_PROGRAM.
 */
int main (string[] args) {
    var loop = new MainLoop ();
    int status = 1;
    run.begin (args[1], args[2], (obj, res) => {
        status = run.end (res);
        loop.quit ();
    });
    loop.run ();
    return status;
}

async int run (string model, string tokenizer_path) {
    try {
        var tokenizer = new ExecutorchLlm.Tokenizer.from_file (tokenizer_path);
        var generator = new ExecutorchLlm.Generator (model, null, tokenizer, null);
        var config = new ExecutorchLlm.GenerationConfig ();
        config.temperature = 0.0;
        config.max_new_tokens = 5;
        config.ignore_eos = true;
        uint tokens = 0;
        var pieces = new StringBuilder ();
        generator.token.connect ((id) => { tokens++; });
        generator.text.connect ((piece) => { pieces.append (piece); });
        string? text = yield generator.generate_async ("Hi", config);
        if (text == null || tokens != 5 || text != pieces.str) {
            stderr.printf ("FAIL: %u tokens, text [%s], pieces [%s]\n", tokens, text ?? "(null)", pieces.str);
            return 1;
        }
        var stats = generator.get_stats ();
        if (stats.num_generated_tokens != 4) {
            stderr.printf ("FAIL: stats say %lld generated\n", stats.num_generated_tokens);
            return 1;
        }
        print ("ok: 5 tokens, text [%s], %s\n", text, stats.to_json ());
    } catch (Error e) {
        stderr.printf ("FAIL: %s\n", e.message);
        return 1;
    }
    try {
        var nothing = new ExecutorchLlm.Generator (tokenizer_path, null,
                                                  new ExecutorchLlm.Tokenizer.from_file (tokenizer_path), null);
        stderr.printf ("FAIL: a tokenizer file made a generator %p\n", nothing);
        return 1;
    } catch (Error e) {
        print ("ok: not a program: %s\n", e.message);
    }
    return 0;
}
