// SPDX-License-Identifier: LGPL-2.1-or-later
// GJS overrides for Executorch-1.0, installed as gjs-1.0/overrides/Executorch.js
// under a data folder GJS searches ($XDG_DATA_DIRS, /usr/share): GJS runs
// _init() the first time the namespace is imported, with `this` the namespace.
// Every name of the typelib stays as it is; these only add to it:
//
// - method.execute_async(cancellable = null) returns a Promise when no
//   callback is given, so `await method.execute_async()` works on every GJS
//   (neither GJS 1.74 nor 1.82 turns GAsync pairs into Promises by itself;
//   the wrapper always passes a callback, so one that does cannot clash);
// - Executorch.Tensor.new_from_typed_array(sizes, array, scalarType) and
//   tensor.to_typed_array(): JS typed arrays in and out, for every scalar type;
// - new Executorch.Program({path}) (and BundledProgram, Method) throws the
//   load's GLib.Error at once, as Python's constructors do, instead of
//   returning an object whose every call then fails.
/* exported _init */

const {GLib} = imports.gi;

// The typed array holding each scalar type's elements.  Types JS has no array
// for are their raw bits: half and bfloat16 as Uint16Array, the 8-bit floats
// and packed types as Uint8Array, bool as 0/1 bytes; a complex number is two
// consecutive elements (real, imaginary).
function arrayTypes(ST) {
    return new Map([
        [ST.BYTE, Uint8Array], [ST.CHAR, Int8Array], [ST.SHORT, Int16Array], [ST.INT, Int32Array],
        [ST.LONG, BigInt64Array], [ST.HALF, Uint16Array], [ST.FLOAT, Float32Array], [ST.DOUBLE, Float64Array],
        [ST.COMPLEX_HALF, Uint16Array], [ST.COMPLEX_FLOAT, Float32Array], [ST.COMPLEX_DOUBLE, Float64Array],
        [ST.BOOL, Uint8Array], [ST.QINT8, Int8Array], [ST.QUINT8, Uint8Array], [ST.QINT32, Int32Array],
        [ST.BFLOAT16, Uint16Array], [ST.QUINT4X2, Uint8Array], [ST.QUINT2X4, Uint8Array],
        [ST.BITS1X8, Uint8Array], [ST.BITS2X4, Uint8Array], [ST.BITS4X2, Uint8Array], [ST.BITS8, Uint8Array],
        [ST.BITS16, Uint16Array], [ST.FLOAT8_E5M2, Uint8Array], [ST.FLOAT8_E4M3FN, Uint8Array],
        [ST.FLOAT8_E5M2FNUZ, Uint8Array], [ST.FLOAT8_E4M3FNUZ, Uint8Array],
        [ST.UINT16, Uint16Array], [ST.UINT32, Uint32Array], [ST.UINT64, BigUint64Array],
    ]);
}

// The scalar type an array means when none is named.
function defaultScalarTypes(ST) {
    return new Map([
        [Uint8Array, ST.BYTE], [Int8Array, ST.CHAR], [Int16Array, ST.SHORT], [Int32Array, ST.INT],
        [BigInt64Array, ST.LONG], [Float32Array, ST.FLOAT], [Float64Array, ST.DOUBLE],
        [Uint16Array, ST.UINT16], [Uint32Array, ST.UINT32], [BigUint64Array, ST.UINT64],
    ]);
}

// Makes klass.prototype[name + '_async'] return a Promise of
// name + '_finish''s result when it is called without a callback.
function promisify(klass, name) {
    const asyncName = `${name}_async`, finishName = `${name}_finish`;
    const original = klass.prototype[asyncName];
    klass.prototype[asyncName] = function (cancellable = null, callback = null) {
        if (callback !== null)
            return original.call(this, cancellable, callback);
        return new Promise((resolve, reject) => {
            original.call(this, cancellable, (self, result) => {
                try {
                    resolve(self[finishName](result));
                } catch (e) {
                    reject(e);
                }
            });
        });
    };
}

function _init() {
    const Executorch = this;
    const ST = Executorch.ScalarType;
    const ARRAY_TYPES = arrayTypes(ST);
    const DEFAULT_SCALAR_TYPES = defaultScalarTypes(ST);
    const invalid = message =>
        new GLib.Error(Executorch.error_quark(), Executorch.Error.INVALID_ARGUMENT, message);
    const nick = scalarType => Executorch.scalar_type_to_string(scalarType);

    promisify(Executorch.Method, 'execute');

    // Property constructors load in the C constructor and keep any failure
    // for Gio.Initable.init(); asking for it here makes `new` throw it.
    for (const klass of [Executorch.Program, Executorch.BundledProgram, Executorch.Method]) {
        const construct = klass.prototype._init;
        klass.prototype._init = function (...args) {
            construct.apply(this, args);
            this.init(null);
        };
    }

    // A host tensor holding a copy of @array's elements (row-major).  Without
    // @scalarType the array's type decides (Float32Array is FLOAT, ...);
    // BOOL, HALF, BFLOAT16 and the other raw-bit types must be named.
    Executorch.Tensor.new_from_typed_array = function (sizes, array, scalarType = undefined) {
        const arrayType = array?.constructor;
        if (scalarType === undefined) {
            scalarType = DEFAULT_SCALAR_TYPES.get(arrayType);
            if (scalarType === undefined) {
                throw invalid(`Tensor.new_from_typed_array: ${arrayType?.name ?? typeof array} has no ` +
                    `default scalar type; pass one of ${[...DEFAULT_SCALAR_TYPES.keys()].map(t => t.name).join(', ')} ` +
                    'or name the scalar type');
            }
        }
        const expected = ARRAY_TYPES.get(scalarType);
        if (expected === undefined)
            throw invalid(`Tensor.new_from_typed_array: ${scalarType} is not a scalar type`);
        if (arrayType !== expected) {
            throw invalid(`Tensor.new_from_typed_array: ${nick(scalarType)} elements come in a ` +
                `${expected.name}, not a ${arrayType?.name ?? typeof array}`);
        }
        const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
        return Executorch.Tensor.new(scalarType, sizes, new GLib.Bytes(bytes));
    };

    // A copy of the elements, in memory order (get_bytes()), in the typed
    // array of the tensor's scalar type.
    Executorch.Tensor.prototype.to_typed_array = function () {
        const arrayType = ARRAY_TYPES.get(this.get_scalar_type());
        if (arrayType === undefined)
            throw invalid(`Tensor.to_typed_array: no typed array for ${nick(this.get_scalar_type())}`);
        // A fresh, aligned buffer: the GBytes' data may sit at any offset.
        const copy = this.get_bytes().toArray().slice();
        return new arrayType(copy.buffer, 0, copy.byteLength / arrayType.BYTES_PER_ELEMENT);
    };
}
