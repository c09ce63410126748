// generate.vala: streams greedy text from an exported language model.
//
//   valac --pkg executorch-llm generate.vala
//   ./generate MODEL.pte TOKENIZER PROMPT [MAX_NEW_TOKENS]
//
// SPDX-License-Identifier: LGPL-2.1-or-later
int main (string[] args) {
    if (args.length < 4) {
        stderr.printf ("usage: %s MODEL.pte TOKENIZER PROMPT [MAX_NEW_TOKENS]\n", args[0]);
        return 2;
    }
    try {
        var tokenizer = new ExecutorchLlm.Tokenizer.from_file (args[2]);
        var generator = new ExecutorchLlm.Generator (args[1], null, tokenizer);
        var config = new ExecutorchLlm.GenerationConfig ();
        config.temperature = 0;
        config.max_new_tokens = args.length > 4 ? int.parse (args[4]) : 64;
        // Each turn runs the model just far enough for the next piece.
        foreach (var piece in generator.stream (args[3], config)) {
            stdout.puts (piece);
            stdout.flush ();
        }
        stdout.putc ('\n');
        return 0;
    } catch (Error e) {
        stderr.printf ("%s\n", e.message);
        return 1;
    }
}
