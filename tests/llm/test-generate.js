// test-generate.js: ExecutorchLlm-1.0 from GJS (the typelib alone).
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Usage: gjs -m test-generate.js MODEL.pte TOKENIZER.json
// generate_async with a callback, the token and text signals in this main
// loop, the text equal to the pieces; GLib.Error for a bad prompt.
import GLib from 'gi://GLib';
import ExecutorchLlm from 'gi://ExecutorchLlm?version=1.0';
import System from 'system';

const [model, tokenizerPath] = ARGV;
const tokenizer = ExecutorchLlm.Tokenizer.new_from_file(tokenizerPath);
const generator = ExecutorchLlm.Generator.new(model, null, tokenizer, null);
const config = new ExecutorchLlm.GenerationConfig({temperature: 0, max_new_tokens: 4, ignore_eos: true});
const tokens = [];
let pieces = '';
generator.connect('token', (_g, id) => tokens.push(id));
generator.connect('text', (_g, text) => {
    pieces += text;
});

const loop = new GLib.MainLoop(null, false);
let status = 1;
generator.generate_async('Hi', config, null, (g, result) => {
    try {
        const text = g.generate_finish(result);
        if (tokens.length === 4 && text === pieces) {
            print(`ok: ${tokens} ${JSON.stringify(text)}`);
            status = 0;
        } else {
            printerr(`FAIL: ${tokens} text ${JSON.stringify(text)} pieces ${JSON.stringify(pieces)}`);
        }
    } catch (e) {
        printerr(`FAIL: ${e}`);
    }
    loop.quit();
});
loop.run();

try {
    generator.generate('x'.repeat(100), config, null);
    printerr('FAIL: a prompt longer than the context was taken');
    status = 1;
} catch (e) {
    if (e.matches(ExecutorchLlm.generator_error_quark(), ExecutorchLlm.GeneratorError.PROMPT_TOO_LONG))
        print(`ok: ${e.message}`);
    else {
        printerr(`FAIL: ${e}`);
        status = 1;
    }
}
System.exit(status);
