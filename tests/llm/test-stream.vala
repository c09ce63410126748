/* test-stream.vala: `foreach` over ExecutorchLlm.Generator.stream () in Vala
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: test-stream-vala MODEL.pte TOKENIZER.json
 * The pieces of `foreach (var piece in generator.stream (...))` are those of
 * the text signal during generate (), joined the same text; breaking out
 * of the loop ends the generation where stop () would have (the same
 * position, the same continuation); `yield stream.next_async ()` gives the
 * same pieces.
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

int fail (string what) {
    stderr.printf ("FAIL: %s\n", what);
    return 1;
}

async int run (string model, string tokenizer_path) {
    try {
        var tokenizer = new ExecutorchLlm.Tokenizer.from_file (tokenizer_path);
        var generator = new ExecutorchLlm.Generator (model, null, tokenizer);
        var config = new ExecutorchLlm.GenerationConfig ();
        config.temperature = 0.0;
        config.max_new_tokens = 6;
        config.ignore_eos = true;

        // The reference: generate () and its text signal.
        string[] want = {};
        ulong handler = generator.text.connect ((piece) => { want += piece; });
        string text = generator.generate ("Hi", config);
        generator.disconnect (handler);
        generator.reset ();

        string[] got = {};
        foreach (var piece in generator.stream ("Hi", config))
            got += piece;
        if (string.joinv ("|", got) != string.joinv ("|", want) || string.joinv ("", got) != text)
            return fail ("foreach gave [%s], generate () [%s]".printf (string.joinv ("|", got),
                                                                      string.joinv ("|", want)));
        if (generator.stop_reason != ExecutorchLlm.StopReason.MAX_NEW_TOKENS)
            return fail ("stop reason %s".printf (generator.stop_reason.to_string ()));
        print ("ok: foreach: %d pieces [%s]\n", got.length, text);

        // Breaking out after two pieces = stop () after two pieces.
        generator.reset ();
        int seen = 0;
        handler = generator.text.connect ((piece) => {
            if (++seen == 2)
                generator.stop ();
        });
        generator.generate ("Hi", config);
        generator.disconnect (handler);
        uint stopped_at = generator.position;
        string continued = generator.generate ("", config);

        generator.reset ();
        int taken = 0;
        foreach (var piece in generator.stream ("Hi", config)) {
            if (++taken == 2 && piece != "")
                break;
        }
        if (generator.stop_reason != ExecutorchLlm.StopReason.STOPPED || generator.position != stopped_at)
            return fail ("after break: %s at %u, stop () left %u".printf (generator.stop_reason.to_string (),
                                                                          generator.position, stopped_at));
        // The generator is free again and goes on from the same place.
        string after_break = generator.generate ("", config);
        if (after_break != continued)
            return fail ("after break [%s], after stop () [%s]".printf (after_break, continued));
        print ("ok: break at position %u, then [%s]\n", stopped_at, after_break);

        // Asynchronously.
        generator.reset ();
        var stream = generator.stream ("Hi", config);
        string[] async_got = {};
        while (yield stream.next_async ())
            async_got += stream.get ();
        if (string.joinv ("|", async_got) != string.joinv ("|", want))
            return fail ("next_async gave [%s]".printf (string.joinv ("|", async_got)));
        print ("ok: next_async\n");
    } catch (Error e) {
        return fail (e.message);
    }
    return 0;
}
