// GJS (ES module) test of the override's typed arrays (bindings/gjs/Executorch.js):
// every scalar type goes in as its typed array and comes back as the same one,
// method outputs read back as typed arrays, and wrong input is a GLib.Error.
import GLib from 'gi://GLib';
import Executorch from 'gi://Executorch?version=1.0';

import {check, models, run} from './harness.js';

const ST = Executorch.ScalarType;

function same(a, b) {
    return a.constructor === b.constructor && a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
}

function throwsInvalid(fn) {
    try {
        fn();
    } catch (e) {
        return e instanceof GLib.Error && e.matches(Executorch.error_quark(), Executorch.Error.INVALID_ARGUMENT)
            ? e.message : null;
    }
    return null;
}

// Every scalar type: [type, typed array of two elements' worth, named?]
// (named: the type must be passed, the array's own default being another).
const ROUND_TRIPS = [
    [ST.BYTE, new Uint8Array([0, 255]), false],
    [ST.CHAR, new Int8Array([-128, 127]), false],
    [ST.SHORT, new Int16Array([-32768, 32767]), false],
    [ST.INT, new Int32Array([-2147483648, 2147483647]), false],
    [ST.LONG, new BigInt64Array([-(2n ** 63n), 2n ** 53n + 1n]), false],
    [ST.FLOAT, new Float32Array([-1.5, 3.25]), false],
    [ST.DOUBLE, new Float64Array([-0, 1 / 3]), false],
    [ST.UINT16, new Uint16Array([0, 65535]), false],
    [ST.UINT32, new Uint32Array([0, 4294967295]), false],
    [ST.UINT64, new BigUint64Array([0n, 2n ** 64n - 1n]), false],
    [ST.BOOL, new Uint8Array([0, 1]), true],
    [ST.HALF, new Uint16Array([0x3e00, 0xc000]), true],   // 1.5, -2.0
    [ST.BFLOAT16, new Uint16Array([0x3fc0, 0xc000]), true],   // 1.5, -2.0
    [ST.COMPLEX_HALF, new Uint16Array([0x3e00, 0xc000, 0, 0x3c00]), true],
    [ST.COMPLEX_FLOAT, new Float32Array([1, -2, 0.5, 4]), true],
    [ST.COMPLEX_DOUBLE, new Float64Array([1, -2, 0.5, 4]), true],
    [ST.QINT8, new Int8Array([-3, 7]), true],
    [ST.QUINT8, new Uint8Array([3, 250]), true],
    [ST.QINT32, new Int32Array([-3, 70000]), true],
    [ST.QUINT4X2, new Uint8Array([0x21, 0xf0]), true],
    [ST.QUINT2X4, new Uint8Array([0x1b, 0xe4]), true],
    [ST.BITS1X8, new Uint8Array([0x81, 0x7e]), true],
    [ST.BITS2X4, new Uint8Array([0x1b, 0xe4]), true],
    [ST.BITS4X2, new Uint8Array([0x21, 0xf0]), true],
    [ST.BITS8, new Uint8Array([0x00, 0xff]), true],
    [ST.BITS16, new Uint16Array([0x0000, 0xffff]), true],
    [ST.FLOAT8_E5M2, new Uint8Array([0x3c, 0xc0]), true],
    [ST.FLOAT8_E4M3FN, new Uint8Array([0x38, 0xc0]), true],
    [ST.FLOAT8_E5M2FNUZ, new Uint8Array([0x40, 0xc4]), true],
    [ST.FLOAT8_E4M3FNUZ, new Uint8Array([0x40, 0xc8]), true],
];

function testRoundTrips() {
    const covered = new Set(ROUND_TRIPS.map(([type]) => type));
    const all = Object.values(ST).filter(v => typeof v === 'number');
    check(all.every(v => covered.has(v)),
        `every ScalarType is tested (missing ${all.filter(v => !covered.has(v))})`);
    for (const [type, values, named] of ROUND_TRIPS) {
        const name = Executorch.scalar_type_to_string(type);
        const perElement = type === ST.COMPLEX_HALF || type === ST.COMPLEX_FLOAT || type === ST.COMPLEX_DOUBLE ? 2 : 1;
        const tensor = named || type === ST.UINT16
            ? Executorch.Tensor.new_from_typed_array([2], values, type)
            : Executorch.Tensor.new_from_typed_array([2], values);
        check(tensor.get_scalar_type() === type, `${name}: the tensor's scalar type`);
        check(tensor.get_nbytes() === values.byteLength && values.length === 2 * perElement,
            `${name}: ${values.byteLength} bytes`);
        const back = tensor.to_typed_array();
        check(same(back, values), `${name}: round trip gives ${back.constructor.name} [${back}], not [${values}]`);
        back[0] = back[1];
        check(same(tensor.to_typed_array(), values), `${name}: the result is a copy`);
    }
    // An array at an odd byte offset comes back aligned.
    const buffer = new ArrayBuffer(1 + 3 * 8);
    new Uint8Array(buffer).set(new Uint8Array(new Float64Array([1, 2, 3]).buffer), 1);
    const odd = new Uint8Array(buffer, 1);
    const tensor = Executorch.Tensor.new(ST.DOUBLE, [3], new GLib.Bytes(odd));
    check(same(tensor.to_typed_array(), new Float64Array([1, 2, 3])), 'unaligned bytes read back as Float64Array');
    const sub = new Float32Array([9, 1, 2, 9]).subarray(1, 3);
    check(same(Executorch.Tensor.new_from_typed_array([2], sub).to_typed_array(), new Float32Array([1, 2])),
        'a subarray gives only its own elements');
    check(same(Executorch.Tensor.new_from_typed_array([0], new Int32Array(0)).to_typed_array(), new Int32Array(0)),
        'an empty tensor');
    check(same(Executorch.Tensor.new_from_typed_array([], new Float64Array([7])).to_typed_array(),
        new Float64Array([7])), 'a 0-d tensor');
}

function testBadInput() {
    let message = throwsInvalid(() => Executorch.Tensor.new_from_typed_array([2], new Float64Array(2), ST.FLOAT));
    check(message?.includes('Float32Array') && message.includes('Float64Array'),
        `a Float64Array for FLOAT names both array types: ${message}`);
    message = throwsInvalid(() => Executorch.Tensor.new_from_typed_array([2], [1, 2]));
    check(message?.includes('Array') && message.includes('Float32Array'),
        `a plain Array is refused, naming the typed arrays: ${message}`);
    message = throwsInvalid(() => Executorch.Tensor.new_from_typed_array([2], new Uint8ClampedArray(2)));
    check(message?.includes('Uint8ClampedArray'), `a Uint8ClampedArray is refused: ${message}`);
    message = throwsInvalid(() => Executorch.Tensor.new_from_typed_array([3], new Float32Array(2)));
    check(message?.includes('12 bytes'), `too few elements for the sizes: ${message}`);
    message = throwsInvalid(() => Executorch.Tensor.new_from_typed_array([2], new Uint8Array(2), 999));
    check(message?.includes('999'), `an unknown scalar type: ${message}`);
}

// Each fixture adds its two inputs; [dir, type, in0, in1, expected].
const HALF_1_5 = 0x3e00, HALF_2 = 0x4000, HALF_3_5 = 0x4300;
const MODELS = [
    ['add', ST.FLOAT, new Float32Array([1, 2, 3, 4, 5, 6]), new Float32Array([0.5, -1, 2.5, 0, 10, -6]),
        new Float32Array([1.5, 1, 5.5, 4, 15, 0])],
    ['ops/add_f16', ST.HALF, new Uint16Array(12).fill(HALF_1_5), new Uint16Array(4).fill(HALF_2),
        new Uint16Array(12).fill(HALF_3_5)],
    ['ops/add_bool', ST.BOOL, new Uint8Array([0, 0, 1, 1, 0, 1]), new Uint8Array([0, 1, 0, 1, 0, 0]),
        new Uint8Array([0, 1, 1, 1, 0, 1])],
    ['ops/add_i8_wrap', ST.CHAR, new Int8Array([100, -100, 1, 0, 127]), new Int8Array([100, -100, -1, 0, 1]),
        new Int8Array([-56, 56, 0, 0, -128])],
    ['ops/add_u8_wrap', ST.BYTE, new Uint8Array([200, 1, 0, 255, 128]), new Uint8Array([100, 2, 0, 1, 128]),
        new Uint8Array([44, 3, 0, 0, 0])],
    ['ops/add_i32', ST.INT, new Int32Array(12).map((_, i) => i * 1000), new Int32Array([1, -2, 3, -4]),
        new Int32Array(12).map((_, i) => i * 1000 + [1, -2, 3, -4][i % 4])],
    ['ops/add_i64_large', ST.LONG, new BigInt64Array([2n ** 60n, -(2n ** 60n), 1n, 0n, 2n ** 53n]),
        new BigInt64Array([3n, 5n, -1n, 0n, 1n]),
        new BigInt64Array([2n ** 60n + 3n, -(2n ** 60n) + 5n, 0n, 0n, 2n ** 53n + 1n])],
];

async function testModels() {
    for (const [dir, type, a, b, expected] of MODELS) {
        const name = dir.split('/').pop();
        const method = Executorch.Program.new_from_file(`${models}/${dir}/${name}.pte`).load_method('forward');
        const info = method.get_info();
        const sizes = i => Array.from(info.get_input(i).get_sizes());
        method.set_input(0, Executorch.Tensor.new_from_typed_array(sizes(0), a, type));
        method.set_input(1, Executorch.Tensor.new_from_typed_array(sizes(1), b, type));
        await method.execute_async();
        const got = method.get_output(0).to_typed_array();
        check(same(got, expected), `${name}: got ${got.constructor.name} [${got}], expected [${expected}]`);
    }
}

run(async () => {
    testRoundTrips();
    testBadInput();
    await testModels();
}, 120);
