// generate.js: streams greedy text from an exported language model (an ES module).
//
//   gjs -m examples/gjs/generate.js MODEL.pte TOKENIZER PROMPT [MAX_NEW_TOKENS]
//
// SPDX-License-Identifier: LGPL-2.1-or-later
import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import ExecutorchLlm from 'gi://ExecutorchLlm?version=1.0';
import System from 'system';

const [model, tokenizerPath, prompt, maxNewTokens = '64'] = ARGV;

// print() ends lines: pieces go to a stream on standard output instead
// (GioUnix since GLib 2.80, Gio before).
async function standardOutput() {
    try {
        const {default: GioUnix} = await import('gi://GioUnix');
        return new GioUnix.OutputStream({fd: 1, close_fd: false});
    } catch {
        return new Gio.UnixOutputStream({fd: 1, close_fd: false});
    }
}

async function main() {
    const stdout = await standardOutput();
    const encoder = new TextEncoder();
    const tokenizer = ExecutorchLlm.Tokenizer.new_from_file(tokenizerPath);
    const generator = ExecutorchLlm.Generator.new(model, null, tokenizer, null);
    for await (const piece of generator.stream(prompt, {maxNewTokens: Number(maxNewTokens), temperature: 0}))
        stdout.write_all(encoder.encode(piece), null);
    stdout.write_all(encoder.encode('\n'), null);
}

const loop = new GLib.MainLoop(null, false);
let status = 0;
main().catch(e => {
    printerr(e.message);
    status = 1;
}).finally(() => loop.quit());
loop.run();
System.exit(status);
