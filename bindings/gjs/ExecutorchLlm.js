// SPDX-License-Identifier: LGPL-2.1-or-later
// GJS overrides for ExecutorchLlm-1.0, installed as gjs-1.0/overrides/ExecutorchLlm.js
// beside Executorch.js; GJS runs _init() the first time the namespace is
// imported, with `this` the namespace.  Every name of the typelib stays as it
// is; these only add to it:
//
// - generator.generate_async(prompt, config = null, cancellable = null)
//   returns a Promise of the text when no callback is given, so
//   `await generator.generate_async(prompt)` works on every GJS without
//   Gio._promisify;
// - generator.stream(prompt, config = null, cancellable = null): an async
//   iterable of the text's pieces, `for await (const piece of
//   generator.stream(prompt, {maxNewTokens: 32, temperature: 0}))`, over
//   the typelib's TextStream (its next_async); leaving the loop early closes
//   the stream, which ends the generation after the last piece taken;
// - a config may be a plain object of settings (camelCase or snake_case
//   GenerationConfig property names), in generate, generate_async and
//   stream, and in new ExecutorchLlm.GenerationConfig({...});
// - new ExecutorchLlm.Generator({program, tokenizer}) throws the load's
//   GLib.Error at once instead of returning a generator that cannot generate.
/* exported _init */

const {GLib, GObject} = imports.gi;

function _init() {
    const ExecutorchLlm = this;
    const Config = ExecutorchLlm.GenerationConfig;
    const Generator = ExecutorchLlm.Generator;

    // A GenerationConfig from null, a GenerationConfig, or a plain object of
    // settings ({maxNewTokens: 16, temperature: 0, stopStrings: ['\n']}).
    const toConfig = settings => {
        if (settings === null || settings === undefined || settings instanceof Config)
            return settings ?? null;
        if (typeof settings !== 'object') {
            throw new GLib.Error(ExecutorchLlm.generator_error_quark(), ExecutorchLlm.GeneratorError.INVALID_CONFIG,
                `a generation config is a GenerationConfig or an object of settings, not ${typeof settings}`);
        }
        return new Config(settings);
    };

    // Whether @value fits the numeric property @pspec.
    const inRange = (pspec, value) => {
        const setters = new Map([[GObject.TYPE_INT, 'set_int'], [GObject.TYPE_UINT, 'set_uint'],
            [GObject.TYPE_INT64, 'set_int64'], [GObject.TYPE_DOUBLE, 'set_double']]);
        const setter = setters.get(pspec.value_type);
        if (setter === undefined)
            return true;
        if (Number.isNaN(value) || (setter !== 'set_double' && !Number.isInteger(value)) ||
            (setter === 'set_uint' && (value < 0 || value > 0xffffffff)) ||
            (setter === 'set_int' && (value < -0x80000000 || value > 0x7fffffff)))
            return false;
        const gvalue = new GObject.Value();
        gvalue.init(pspec.value_type);
        gvalue[setter](value);
        return GObject.param_value_is_valid(pspec, gvalue);
    };

    // Settings are checked here: GObject would only warn about a value out
    // of range and keep the old one.
    const configInit = Config.prototype._init;
    Config.prototype._init = function (settings = {}) {
        configInit.call(this);
        for (const [key, value] of Object.entries(settings)) {
            const name = key.replace(/[A-Z]/g, c => `-${c.toLowerCase()}`).replace(/_/g, '-');
            const pspec = GObject.Object.find_property.call(Config, name);
            if (pspec === null) {
                throw new GLib.Error(ExecutorchLlm.generator_error_quark(),
                    ExecutorchLlm.GeneratorError.INVALID_CONFIG, `unknown generation setting ${key}`);
            }
            if (typeof value === 'number' && !inRange(pspec, value)) {
                throw new GLib.Error(ExecutorchLlm.generator_error_quark(),
                    ExecutorchLlm.GeneratorError.INVALID_CONFIG, `generation setting ${key} = ${value} is out of range`);
            }
            this[name.replace(/-/g, '_')] = value;
        }
    };

    const generatorInit = Generator.prototype._init;
    Generator.prototype._init = function (...args) {
        generatorInit.apply(this, args);
        this.init(null);
    };

    const generate = Generator.prototype.generate;
    Generator.prototype.generate = function (prompt, config = null, cancellable = null) {
        return generate.call(this, prompt, toConfig(config), cancellable);
    };

    const generateAsync = Generator.prototype.generate_async;
    Generator.prototype.generate_async = function (prompt, config = null, cancellable = null, callback = null) {
        if (callback !== null)
            return generateAsync.call(this, prompt, toConfig(config), cancellable, callback);
        return new Promise((resolve, reject) => {
            generateAsync.call(this, prompt, toConfig(config), cancellable, (self, result) => {
                try {
                    resolve(self.generate_finish(result));
                } catch (e) {
                    reject(e);
                }
            });
        });
    };

    // The typelib's ExecutorchLlm.TextStream, pulled with next_async: each
    // step runs the model just far enough for the next piece.  The stream is
    // made when the loop starts (an iterable never iterated leaves the
    // generator free), and return() (break, return, throw) closes it, which
    // ends the generation right after the last piece taken.
    const textStream = Generator.prototype.stream;
    Generator.prototype.stream = function (prompt, config = null, cancellable = null) {
        const generator = this;
        config = toConfig(config);
        return {
            [Symbol.asyncIterator]() {
                const stream = textStream.call(generator, prompt, config, cancellable);
                return {
                    next() {
                        return new Promise((resolve, reject) => {
                            stream.next_async((self, result) => {
                                try {
                                    if (self.next_finish(result)) {
                                        resolve({value: self.get(), done: false});
                                        return;
                                    }
                                    resolve({value: undefined, done: true});
                                } catch (e) {
                                    reject(e);
                                }
                                self.close();
                            });
                        });
                    },
                    return() {
                        stream.close();
                        return Promise.resolve({value: undefined, done: true});
                    },
                };
            },
        };
    };

    const getEosIds = Generator.prototype.get_eos_ids;
    Generator.prototype.get_eos_ids = function () {
        return Array.from(getEosIds.call(this));
    };

    ExecutorchLlm.Stats.prototype.to_object = function () {
        return JSON.parse(this.to_json());
    };
}
