// GJS (ES module) test of the ExecutorchLlm override (bindings/gjs/ExecutorchLlm.js)
// on a tiny llama fixture: LLM_MANIFEST names tests/models/llm/manifest.json.
import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import ExecutorchLlm from 'gi://ExecutorchLlm?version=1.0';

import {check, run} from './harness.js';

const manifestPath = GLib.getenv('LLM_MANIFEST');
const here = GLib.path_get_dirname(manifestPath);
const manifest = JSON.parse(new TextDecoder().decode(GLib.file_get_contents(manifestPath)[1]));
const fixture = manifest.fixtures.find(f => !f.needs);
const [{prompt, text: expected}] = fixture.cases;
const greedy = {maxNewTokens: manifest.max_new_tokens, temperature: 0};

function errorOf(f) {
    try {
        f();
    } catch (e) {
        return e;
    }
    return null;
}

async function main() {
    const tokenizer = ExecutorchLlm.Tokenizer.new_from_file(`${here}/${manifest.tokenizer}`);
    const generator = ExecutorchLlm.Generator.new(`${here}/${fixture.pte}`, null, tokenizer, null);
    check(generator.get_eos_ids().join() === fixture.metadata.get_eos_ids.join(), 'EOS ids from the metadata');

    // A stream started before the main loop runs (run() calls main() first),
    // while this thread is busy: its pieces still come here, in this thread,
    // none lost (they once ran in the worker whenever the default main
    // context had no owner).
    const early = generator.stream(prompt, greedy)[Symbol.asyncIterator]();
    const other = ExecutorchLlm.Generator.new(`${here}/${fixture.pte}`, null, tokenizer, null);
    check(other.generate(prompt, greedy) === expected, 'a synchronous generate meanwhile');
    const earlyPieces = [];
    for (let step = await early.next(); !step.done; step = await early.next())
        earlyPieces.push(step.value);
    check(earlyPieces.join('') === expected, `a stream started before the loop: ${JSON.stringify(earlyPieces)}`);
    generator.reset();

    // await generate_async with a plain-object config: upstream's greedy text.
    const pending = generator.generate_async(prompt, greedy);
    check(pending instanceof Promise, 'generate_async without a callback returns a Promise');
    check(await pending === expected, 'await generate_async gives upstream\'s greedy text');
    check(generator.get_stats().to_object().generated_tokens === manifest.max_new_tokens - 1, 'stats');

    // for await over the pieces.
    generator.reset();
    const pieces = [];
    for await (const piece of generator.stream(prompt, greedy))
        pieces.push(piece);
    check(pieces.length > 1 && pieces.join('') === expected, `stream: ${JSON.stringify(pieces)}`);

    // Leaving the loop early ends the generation right there, as stop()
    // after the same piece: the same position, the same continuation.
    generator.reset();
    const handler = generator.connect('text', () => generator.stop());
    generator.generate(prompt, greedy);
    generator.disconnect(handler);
    const stoppedAt = generator.get_position();
    const continued = generator.generate('', {maxNewTokens: 3, temperature: 0});
    generator.reset();
    for await (const piece of generator.stream(prompt, greedy)) {
        check(typeof piece === 'string' && piece.length > 0, 'a piece');
        break;
    }
    check(generator.get_stop_reason() === ExecutorchLlm.StopReason.STOPPED, 'break ends the generation');
    check(generator.get_position() === stoppedAt, `break at ${generator.get_position()}, stop() at ${stoppedAt}`);
    check(generator.generate('', {maxNewTokens: 3, temperature: 0}) === continued, 'the same continuation');
    generator.reset();
    check(generator.generate(prompt, new ExecutorchLlm.GenerationConfig(greedy)) === expected,
        'generate after a break, with a GenerationConfig');

    // A config out of range, or unknown, throws at once.
    const bad = errorOf(() => new ExecutorchLlm.GenerationConfig({topP: 2}));
    check(bad?.matches(ExecutorchLlm.generator_error_quark(), ExecutorchLlm.GeneratorError.INVALID_CONFIG),
        `top_p 2: ${bad}`);
    check(errorOf(() => new ExecutorchLlm.GenerationConfig({warmth: 1})) !== null, 'an unknown setting throws');

    // Errors come as rejections and as exceptions from the loop.
    generator.reset();
    let rejected = null;
    try {
        await generator.generate_async('word '.repeat(200), greedy);
    } catch (e) {
        rejected = e;
    }
    check(rejected?.matches(ExecutorchLlm.generator_error_quark(), ExecutorchLlm.GeneratorError.PROMPT_TOO_LONG),
        `a prompt too long rejects: ${rejected}`);
    const cancellable = new Gio.Cancellable();
    cancellable.cancel();
    let thrown = null;
    try {
        for await (const piece of generator.stream(prompt, greedy, cancellable))
            void piece;
    } catch (e) {
        thrown = e;
    }
    check(thrown?.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED), `a cancelled stream throws: ${thrown}`);
    // new Generator({...}) throws the load's error at once.
    const unloaded = errorOf(() => new ExecutorchLlm.Generator({tokenizer}));
    check(unloaded?.matches(ExecutorchLlm.generator_error_quark(), ExecutorchLlm.GeneratorError.INVALID_PROGRAM),
        `new Generator without a program throws: ${unloaded}`);
    const missing = errorOf(() => ExecutorchLlm.Generator.new(`${here}/missing.pte`, null, tokenizer, null));
    check(missing instanceof GLib.Error, `a missing model throws: ${missing}`);
}

run(main);
