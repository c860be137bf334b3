"""Key handling for Paimon's bitmap file index: encodings, Java equality/ordering, Java hashing.

The bitmap index (:mod:`paimon_lens.formats.bitmap`) stores one key per distinct value. Every
key is handled here in a *raw key* form chosen so that Python's ``==``/``hash`` behave like
the Java ``equals`` Paimon's ``HashMap`` uses, and Python's ``<`` like the comparator Paimon's
V2 writer sorts by and its reader binary-searches with:

==============================  ===============  =====================================
type                            stored key       raw key
==============================  ===============  =====================================
CHAR / VARCHAR / STRING         len:i32 + UTF-8  ``bytes`` (compared unsigned, bytewise)
TINYINT / SMALLINT              i8 / i16         ``int``
INT / DATE / TIME               i32              ``int``
BIGINT                          i64              ``int``
TIMESTAMP(_LTZ)(p)              i64              ``int``: epoch millis (p <= 3) else micros
FLOAT / DOUBLE                  IEEE bits        ``int``: sortable form of the canonical bits
BOOLEAN                         1 byte           ``bool`` (stored byte != 0)
==============================  ===============  =====================================

Floats follow ``Float.equals``/``Float.compare``: equality of ``floatToIntBits`` (every NaN is
the canonical NaN, ``-0.0 != 0.0``) and the total order ``-inf < ... < -0.0 < 0.0 < ... < inf <
NaN``; the sortable form maps the canonical bits to a signed integer with exactly that order
(:mod:`paimon_lens.formats.float_keys`, shared with the range-bitmap index).

The writer must also reproduce the *iteration order* of ``java.util.HashMap`` (V1 dictionary
order and the bitmap body order of both versions), so this module emulates ``HashMap``'s
``computeIfAbsent``, resizing and tree bins (see :class:`JavaHashMapOrder`), with the Java
``hashCode`` of each key type (:meth:`KeyCodec.java_hash`).
"""

from __future__ import annotations

import datetime as _dt
import struct
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from ..errors import UnsupportedError
from ..types import EPOCH_DATE, DataType, Timestamp
from .float_keys import f32_bits, f32_key, f64_bits, f64_key, float32_key, float64_key, key_float32, key_float64

_M32 = 0xFFFFFFFF
_M64 = 0xFFFFFFFFFFFFFFFF

_I32 = struct.Struct(">i")
_I64 = struct.Struct(">q")
_U32LE = struct.Struct("<I")


# ---- float raw keys ----------------------------------------------------------------------------
# The sort keys of floats are those of the range-bitmap index: see :mod:`.float_keys`.

def _unsortable(key: int, sign: int) -> int:
    """The unsigned IEEE bits of a float raw key; ``sign`` is 0x80000000 (FLOAT) or ``1 << 63`` (DOUBLE)."""
    return f32_bits(key) & _M32 if sign == 0x80000000 else f64_bits(key) & _M64


# ---- Java hash codes ---------------------------------------------------------------------------

def _rotl32(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M32


def _mix_k1(k1: int) -> int:
    k1 = (k1 * 0xCC9E2D51) & _M32
    k1 = _rotl32(k1, 15)
    return (k1 * 0x1B873593) & _M32


def _mix_h1(h1: int, k1: int) -> int:
    h1 ^= k1
    h1 = _rotl32(h1, 13)
    return (h1 * 5 + 0xE6546B64) & _M32


def binary_string_hash(data: bytes) -> int:
    """``BinaryString.hashCode()`` (Paimon's Murmur3 variant, seed 42), as an unsigned 32-bit int.

    Whole 4-byte words are read little-endian (``MemorySegment.getInt`` on x86); each trailing
    byte is sign-extended and mixed as a word of its own.
    """
    n = len(data)
    aligned = n - n % 4
    h1 = 42
    for (word,) in _U32LE.iter_unpack(data[:aligned]):
        h1 = _mix_h1(h1, _mix_k1(word))
    for b in data[aligned:]:
        h1 = _mix_h1(h1, _mix_k1((b - 256 if b > 127 else b) & _M32))
    h1 ^= n
    h1 ^= h1 >> 16
    h1 = (h1 * 0x85EBCA6B) & _M32
    h1 ^= h1 >> 13
    h1 = (h1 * 0xC2B2AE35) & _M32
    h1 ^= h1 >> 16
    return h1


def _long_hash(v: int) -> int:
    u = v & _M64
    return (u ^ (u >> 32)) & _M32


# ---- codecs ------------------------------------------------------------------------------------

_FIXED = {
    # kind: (struct format char, byte size)
    "byte": ("b", 1), "short": ("h", 2), "int": ("i", 4), "long": ("q", 8),
    "float": ("I", 4), "double": ("Q", 8), "boolean": ("B", 1),
}


_NUMPY_DTYPES = {"b": "i1", "h": ">i2", "i": ">i4", "q": ">i8", "I": ">u4", "Q": ">u8", "B": "u1"}


class KeyCodec:
    """How one data type's keys are stored, compared, hashed and shown.

    ``kind`` is Paimon's ``BitmapTypeVisitor`` branch: ``string``, ``byte``, ``short``, ``int``,
    ``long``, ``float``, ``double`` or ``boolean``. ``ts_micros`` tells a timestamp type whose
    keys are microseconds (precision > 3); ``None`` for non-timestamps.
    """

    __slots__ = ("data_type", "fmt", "kind", "size", "ts_micros")

    def __init__(self, data_type: DataType) -> None:
        r = data_type.root
        self.data_type = data_type
        self.ts_micros: bool | None = None
        if data_type.is_string:
            kind = "string"
        elif r == "TINYINT":
            kind = "byte"
        elif r == "SMALLINT":
            kind = "short"
        elif r in ("INT", "DATE", "TIME"):
            kind = "int"
        elif r == "BIGINT":
            kind = "long"
        elif data_type.is_timestamp:
            kind = "long"
            precision = 6 if data_type.precision is None else data_type.precision
            self.ts_micros = precision > 3
        elif r == "FLOAT":
            kind = "float"
        elif r == "DOUBLE":
            kind = "double"
        elif r == "BOOLEAN":
            kind = "boolean"
        else:
            raise UnsupportedError(f"the bitmap index does not support type {data_type}")
        self.kind = kind
        if kind == "string":
            self.fmt = ""
            self.size = 4  # the smallest stored key: an empty string
        else:
            self.fmt, self.size = _FIXED[kind]

    @property
    def fixed(self) -> bool:
        """Whether every key has the same stored size."""
        return self.kind != "string"

    # -- stored form <-> raw key -----------------------------------------------------------------
    def from_unpacked(self, x: Any) -> Hashable:
        """Raw key from the value ``struct`` unpacked with :attr:`fmt` (fixed-size kinds)."""
        k = self.kind
        if k == "float":
            return f32_key(x)
        if k == "double":
            return f64_key(x)
        if k == "boolean":
            return x != 0
        result: Hashable = x
        return result

    @property
    def numpy_dtype(self) -> str:
        """The numpy dtype string of a stored fixed-size key (big-endian), e.g. ``">i8"``."""
        return _NUMPY_DTYPES[self.fmt]

    def key_mapper(self) -> Callable[[Any], Hashable] | None:
        """A per-value mapper for unpacked fixed-size keys, or None when the value is the key."""
        k = self.kind
        if k == "float":
            return f32_key
        if k == "double":
            return f64_key
        if k == "boolean":
            return self.from_unpacked
        return None

    def encode(self, key: Hashable) -> bytes:
        """The stored bytes of a raw key."""
        k = self.kind
        if k == "string":
            assert isinstance(key, bytes)
            return _I32.pack(len(key)) + key
        if k == "float":
            assert isinstance(key, int)
            return _I32.pack(f32_bits(key))
        if k == "double":
            assert isinstance(key, int)
            return _I64.pack(f64_bits(key))
        if k == "boolean":
            return b"\x01" if key else b"\x00"
        return struct.pack(">" + self.fmt, key)

    def key_size(self, key: Hashable) -> int:
        """Stored size in bytes of a raw key."""
        if self.kind == "string":
            assert isinstance(key, bytes)
            return 4 + len(key)
        return self.size

    def to_value(self, key: Hashable) -> Any:
        """The internal value (see :mod:`paimon_lens.types`) a raw key stands for."""
        k = self.kind
        if k == "string":
            assert isinstance(key, bytes)
            return key.decode("utf-8", "replace")
        if k == "float":
            assert isinstance(key, int)
            return key_float32(key)
        if k == "double":
            assert isinstance(key, int)
            return key_float64(key)
        if k == "boolean":
            return bool(key)
        if self.ts_micros is not None:
            assert isinstance(key, int)
            return Timestamp.from_micros(key) if self.ts_micros else Timestamp.from_millis(key)
        return key

    def value_mapper(self) -> Callable[[Hashable], Any] | None:
        """:meth:`to_value` as a function, or None where the raw key is the value (integers)."""
        if self.kind in ("byte", "short", "int", "long") and self.ts_micros is None:
            return None
        return self.to_value

    def to_values(self, keys: Sequence[Hashable]) -> list[Any]:
        """:meth:`to_value` of many raw keys at once (one list, in order)."""
        k = self.kind
        if k == "string":
            try:  # valid UTF-8 decodes the same strictly, and map() is faster than a comprehension
                return list(map(bytes.decode, keys))  # type: ignore[arg-type]  # bytes keys
            except UnicodeDecodeError:
                return [key.decode("utf-8", "replace") for key in keys]  # type: ignore[attr-defined]
        if k in ("byte", "short", "int", "long") and self.ts_micros is None:
            return list(keys)
        return list(map(self.to_value, keys))

    def literal_key(self, value: Any) -> Hashable:
        """Raw key of an internal value (a literal or a value written); None stays None.

        Raises TypeError for a value that cannot be a value of this type.
        """
        if value is None:
            return None
        k = self.kind
        if k == "string":
            if isinstance(value, str):
                # Java's encoder writes '?' for unpaired surrogates, as 'replace' does.
                return value.encode("utf-8", "replace")
            if isinstance(value, (bytes, bytearray)):
                return bytes(value)
            raise TypeError(f"not a string: {value!r}")
        if k == "float":
            return float32_key(_as_float(value))
        if k == "double":
            return float64_key(_as_float(value))
        if k == "boolean":
            if isinstance(value, (bool, int)):
                return bool(value)
            raise TypeError(f"not a boolean: {value!r}")
        if self.ts_micros is not None:
            if isinstance(value, Timestamp):
                return value.to_micros() if self.ts_micros else value.to_millis()
            if isinstance(value, _dt.datetime):
                ts = Timestamp.from_datetime(value)
                return ts.to_micros() if self.ts_micros else ts.to_millis()
            raise TypeError(f"not a timestamp: {value!r}")
        if isinstance(value, _dt.date) and not isinstance(value, _dt.datetime):
            return (value - EPOCH_DATE).days
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise TypeError(f"not an integer: {value!r}")

    def in_range(self, key: Hashable) -> bool:
        """Whether a raw key can be stored (integers inside their Java range)."""
        if not isinstance(key, int) or self.kind in ("float", "double", "boolean"):
            return True
        bits = {"byte": 8, "short": 16, "int": 32, "long": 64}[self.kind]
        return -(1 << (bits - 1)) <= key < (1 << (bits - 1))

    def java_hash(self, key: Hashable) -> int:
        """``hashCode()`` of the Java object Paimon keys its HashMap by (unsigned 32-bit)."""
        k = self.kind
        if k == "string":
            assert isinstance(key, bytes)
            return binary_string_hash(key)
        if k == "boolean":
            return 1231 if key else 1237
        assert isinstance(key, int)
        if k == "float":
            return f32_bits(key) & _M32
        if k == "double":
            return _long_hash(f64_bits(key))
        if k == "long":
            return _long_hash(key)
        return key & _M32


def _as_float(value: Any) -> float:
    if isinstance(value, (float, int)) and not isinstance(value, bool):
        return float(value)
    raise TypeError(f"not a number: {value!r}")


def key_codec(data_type: DataType) -> KeyCodec:
    """The codec of a column type; raises UnsupportedError for types bitmap indexes reject."""
    return KeyCodec(data_type)


# ---- Java's binary search ------------------------------------------------------------------------

def java_binary_search(keys: Sequence[Any], key: Any) -> int:
    """``Collections.binarySearch`` on a random-access list (same probes, same result).

    Returns the index of a match, or ``-(insertion point) - 1``.
    """
    low, high = 0, len(keys) - 1
    while low <= high:
        mid = (low + high) >> 1
        v = keys[mid]
        if v < key:
            low = mid + 1
        elif key < v:
            high = mid - 1
        else:
            return mid
    return -(low + 1)


# ---- java.util.HashMap iteration order ---------------------------------------------------------

_TREEIFY_THRESHOLD = 8
_UNTREEIFY_THRESHOLD = 6
_MIN_TREEIFY_CAPACITY = 64


class _TNode:
    """A ``HashMap.TreeNode``: linked by next/prev (iteration order) and as a red-black tree."""

    __slots__ = ("hash", "key", "left", "next", "parent", "prev", "red", "right")

    def __init__(self, h: int, key: Any) -> None:
        self.hash = h
        self.key = key
        self.next: _TNode | None = None
        self.prev: _TNode | None = None
        self.parent: _TNode | None = None
        self.left: _TNode | None = None
        self.right: _TNode | None = None
        self.red = False


def _signed32(x: int) -> int:
    return x - (1 << 32) if x & 0x80000000 else x


def _dir(h: int, key: Any, p: _TNode) -> int:
    """Descent direction in a tree bin: by signed hash, then ``compareTo`` (keys are Comparable)."""
    if p.hash > h:
        return -1
    if p.hash < h:
        return 1
    return -1 if key < p.key else 1


def _rotate_left(root: _TNode, p: _TNode) -> _TNode:
    r = p.right
    if r is not None:
        rl = p.right = r.left
        if rl is not None:
            rl.parent = p
        pp = r.parent = p.parent
        if pp is None:
            root = r
            r.red = False
        elif pp.left is p:
            pp.left = r
        else:
            pp.right = r
        r.left = p
        p.parent = r
    return root


def _rotate_right(root: _TNode, p: _TNode) -> _TNode:
    left = p.left
    if left is not None:
        lr = p.left = left.right
        if lr is not None:
            lr.parent = p
        pp = left.parent = p.parent
        if pp is None:
            root = left
            left.red = False
        elif pp.right is p:
            pp.right = left
        else:
            pp.left = left
        left.right = p
        p.parent = left
    return root


def _balance_insertion(root: _TNode, x: _TNode) -> _TNode:
    x.red = True
    while True:
        xp = x.parent
        if xp is None:
            x.red = False
            return x
        xpp = xp.parent
        if not xp.red or xpp is None:
            return root
        xppl = xpp.left
        if xp is xppl:
            xppr = xpp.right
            if xppr is not None and xppr.red:
                xppr.red = False
                xp.red = False
                xpp.red = True
                x = xpp
            else:
                if x is xp.right:
                    x = xp
                    root = _rotate_left(root, x)
                    xp = x.parent
                    xpp = None if xp is None else xp.parent
                if xp is not None:
                    xp.red = False
                    if xpp is not None:
                        xpp.red = True
                        root = _rotate_right(root, xpp)
        else:
            if xppl is not None and xppl.red:
                xppl.red = False
                xp.red = False
                xpp.red = True
                x = xpp
            else:
                if x is xp.left:
                    x = xp
                    root = _rotate_right(root, x)
                    xp = x.parent
                    xpp = None if xp is None else xp.parent
                if xp is not None:
                    xp.red = False
                    if xpp is not None:
                        xpp.red = True
                        root = _rotate_left(root, xpp)


class JavaHashMapOrder:
    """Tracks where ``java.util.HashMap`` (JDK 8-17) puts keys, to reproduce its iteration order.

    Replay every ``computeIfAbsent`` call in call order: :meth:`insert` for a new key,
    :meth:`access` for an existing one (a pending resize happens at the start of any call), then
    read :meth:`order`.
    Bins are lists (head insertion, as ``computeIfAbsent`` does) until they reach 8 nodes in a
    table of at least 64 buckets; then they become red-black tree bins whose node order follows
    Java's ``treeify``/``putTreeVal``/``moveRootToFront``/``split``.
    """

    def __init__(self) -> None:
        self._table: list[list[Any] | _TNode | None] = []
        self._hashes: dict[Any, int] = {}
        self._threshold = 0
        self.size = 0

    @staticmethod
    def spread(hash_code: int) -> int:
        """``HashMap.hash``: ``h ^ (h >>> 16)`` as a signed 32-bit int."""
        h = hash_code & _M32
        return _signed32(h ^ (h >> 16))

    def insert(self, key: Any, hash_code: int) -> None:
        """``computeIfAbsent`` of a key not yet present (``hash_code`` = its Java ``hashCode``)."""
        if self.size > self._threshold or not self._table:
            self._resize()
        if key in self._hashes:
            return
        h = self.spread(hash_code)
        self._hashes[key] = h
        tab = self._table
        i = (len(tab) - 1) & h
        first = tab[i]
        if first is None:
            tab[i] = [key]
        elif isinstance(first, _TNode):
            self._put_tree_val(first, h, key)
        else:
            bin_count = len(first)
            first.insert(0, key)
            if bin_count >= _TREEIFY_THRESHOLD - 1:
                self._treeify_bin(i)
        self.size += 1

    def access(self) -> None:
        """``computeIfAbsent`` of a key already present: only a pending resize happens."""
        if self.size > self._threshold:
            self._resize()

    def order(self) -> list[Any]:
        """Keys in ``HashMap.forEach`` order."""
        out: list[Any] = []
        for b in self._table:
            if b is None:
                continue
            if isinstance(b, _TNode):
                n: _TNode | None = b
                while n is not None:
                    out.append(n.key)
                    n = n.next
            else:
                out.extend(b)
        return out

    # -- internals -------------------------------------------------------------------------------
    def _resize(self) -> None:
        old = self._table
        old_cap = len(old)
        if old_cap == 0:
            new_cap, self._threshold = 16, 12
        else:
            new_cap = old_cap * 2
            self._threshold *= 2
        new: list[list[Any] | _TNode | None] = [None] * new_cap
        self._table = new
        for j, b in enumerate(old):
            if b is None:
                continue
            if isinstance(b, _TNode):
                if b.next is None:
                    new[b.hash & (new_cap - 1)] = b
                else:
                    self._split(b, j, old_cap)
                continue
            if len(b) == 1:
                new[self._hashes[b[0]] & (new_cap - 1)] = b
                continue
            lo = [k for k in b if not self._hashes[k] & old_cap]
            hi = [k for k in b if self._hashes[k] & old_cap]
            if lo:
                new[j] = lo
            if hi:
                new[j + old_cap] = hi

    def _treeify_bin(self, index: int) -> None:
        tab = self._table
        if len(tab) < _MIN_TREEIFY_CAPACITY:
            self._resize()
            return
        b = tab[index]
        assert isinstance(b, list)
        hd: _TNode | None = None
        tl: _TNode | None = None
        for k in b:
            p = _TNode(self._hashes[k], k)
            if tl is None:
                hd = p
            else:
                p.prev = tl
                tl.next = p
            tl = p
        assert hd is not None
        tab[index] = hd
        self._treeify(hd)

    def _treeify(self, head: _TNode) -> None:
        root: _TNode | None = None
        x: _TNode | None = head
        while x is not None:
            nxt = x.next
            x.left = x.right = None
            if root is None:
                x.parent = None
                x.red = False
                root = x
            else:
                p = root
                while True:
                    d = _dir(x.hash, x.key, p)
                    xp = p
                    child = p.left if d <= 0 else p.right
                    if child is None:
                        x.parent = xp
                        if d <= 0:
                            xp.left = x
                        else:
                            xp.right = x
                        root = _balance_insertion(root, x)
                        break
                    p = child
            x = nxt
        assert root is not None
        self._move_root_to_front(root)

    def _move_root_to_front(self, root: _TNode) -> None:
        tab = self._table
        index = (len(tab) - 1) & root.hash
        first = tab[index]
        assert isinstance(first, _TNode)
        if root is not first:
            tab[index] = root
            rp = root.prev
            rn = root.next
            if rn is not None:
                rn.prev = rp
            if rp is not None:
                rp.next = rn
            first.prev = root
            root.next = first
            root.prev = None

    def _put_tree_val(self, first: _TNode, h: int, key: Any) -> None:
        root = first
        while root.parent is not None:
            root = root.parent
        p = root
        while True:
            d = _dir(h, key, p)
            xp = p
            child = p.left if d <= 0 else p.right
            if child is None:
                xpn = xp.next
                x = _TNode(h, key)
                x.next = xpn
                if d <= 0:
                    xp.left = x
                else:
                    xp.right = x
                xp.next = x
                x.parent = x.prev = xp
                if xpn is not None:
                    xpn.prev = x
                self._move_root_to_front(_balance_insertion(root, x))
                return
            p = child

    def _split(self, b: _TNode, index: int, bit: int) -> None:
        tab = self._table
        lo_head = lo_tail = hi_head = hi_tail = None
        lc = hc = 0
        e: _TNode | None = b
        while e is not None:
            nxt = e.next
            e.next = None
            if not e.hash & bit:
                e.prev = lo_tail
                if lo_tail is None:
                    lo_head = e
                else:
                    lo_tail.next = e
                lo_tail = e
                lc += 1
            else:
                e.prev = hi_tail
                if hi_tail is None:
                    hi_head = e
                else:
                    hi_tail.next = e
                hi_tail = e
                hc += 1
            e = nxt
        if lo_head is not None:
            if lc <= _UNTREEIFY_THRESHOLD:
                tab[index] = _untreeify(lo_head)
            else:
                tab[index] = lo_head
                if hi_head is not None:
                    self._treeify(lo_head)
        if hi_head is not None:
            if hc <= _UNTREEIFY_THRESHOLD:
                tab[index + bit] = _untreeify(hi_head)
            else:
                tab[index + bit] = hi_head
                if lo_head is not None:
                    self._treeify(hi_head)


def _untreeify(head: _TNode) -> list[Any]:
    out: list[Any] = []
    n: _TNode | None = head
    while n is not None:
        out.append(n.key)
        n = n.next
    return out


# ---- bulk writing helpers ------------------------------------------------------------------------
#
# The bitmap writer's bulk path (:meth:`paimon_lens.formats.bitmap.BitmapIndexWriter.write_many`)
# needs the Java hash codes of all distinct keys and the HashMap iteration order they end up in.
# Both are computed with numpy here; each agrees with its one-by-one counterpart above (tested).

#: keys longer than this are hashed one by one (the vectorised loop runs once per 4-byte word)
_VECTOR_HASH_MAX_BYTES = 256


def binary_string_hashes(keys: Sequence[bytes]) -> Any:
    """:func:`binary_string_hash` of many byte strings at once, as a ``uint32`` numpy array."""
    import numpy as np

    n = len(keys)
    out = np.zeros(n, dtype=np.uint32)
    if n == 0:
        return out
    lengths = np.fromiter(map(len, keys), dtype=np.int64, count=n)
    long_keys = np.flatnonzero(lengths > _VECTOR_HASH_MAX_BYTES)
    for i in long_keys.tolist():
        out[i] = binary_string_hash(keys[i])
    short = np.flatnonzero(lengths <= _VECTOR_HASH_MAX_BYTES)
    if len(short) == 0:
        return out
    if len(long_keys):
        keys = [keys[i] for i in short.tolist()]
        lengths = lengths[short]
    data = np.frombuffer(b"".join(keys) + b"\0\0\0\0", dtype=np.uint8).astype(np.uint32)
    starts = np.zeros(len(keys), dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    words = lengths // 4
    # longest first: the keys that still have a word j are a prefix of this order
    order = np.argsort(-words, kind="stable")
    starts_o, words_o = starts[order], words[order]
    h1 = np.full(len(keys), 42, dtype=np.uint32)
    c1, c2 = np.uint32(0xCC9E2D51), np.uint32(0x1B873593)
    five, add = np.uint32(5), np.uint32(0xE6546B64)

    def mix(h: Any, k: Any) -> Any:
        k = k * c1
        k = (k << 15) | (k >> 17)
        k = k * c2
        h = h ^ k
        h = (h << 13) | (h >> 19)
        return h * five + add

    active = len(keys)
    for j in range(int(words_o[0]) if len(words_o) else 0):
        while active and words_o[active - 1] <= j:
            active -= 1
        base = starts_o[:active] + 4 * j
        word = data[base] | (data[base + 1] << 8) | (data[base + 2] << 16) | (data[base + 3] << 24)
        h1[:active] = mix(h1[:active], word)
    h = np.empty_like(h1)
    h[order] = h1
    tails = lengths - 4 * words
    tail_base = starts + 4 * words
    for t in range(3):
        idx = np.flatnonzero(tails > t)
        if len(idx) == 0:
            break
        b = data[tail_base[idx] + t]
        signed = np.where(b > 127, b + np.uint32(0xFFFFFF00), b).astype(np.uint32)
        h[idx] = mix(h[idx], signed)
    h ^= lengths.astype(np.uint32)
    h ^= h >> 16
    h *= np.uint32(0x85EBCA6B)
    h ^= h >> 13
    h *= np.uint32(0xC2B2AE35)
    h ^= h >> 16
    out[short] = h
    return out


def java_hashes(codec: KeyCodec, keys: Sequence[Hashable]) -> Any:
    """:meth:`KeyCodec.java_hash` of many raw keys, as a ``uint32`` numpy array."""
    import numpy as np

    k = codec.kind
    if k == "string":
        return binary_string_hashes(keys)  # type: ignore[arg-type]  # string keys are bytes
    if k in ("byte", "short", "int", "long") and keys:
        arr = np.array(keys, dtype=np.int64)
        if k == "long":
            u = arr.view(np.uint64)
            return ((u ^ (u >> np.uint64(32))) & np.uint64(_M32)).astype(np.uint32)
        return (arr & _M32).astype(np.uint32)
    return np.fromiter(map(codec.java_hash, keys), dtype=np.uint32, count=len(keys))


def hashmap_order(hash_codes: Any, trailing_access: bool) -> Any:
    """``java.util.HashMap`` iteration order after ``computeIfAbsent`` of distinct keys, in bulk.

    ``hash_codes`` are the keys' Java ``hashCode`` values (unsigned 32-bit) in insertion order;
    ``trailing_access`` tells whether any ``computeIfAbsent`` of an existing key came after the
    last insertion (it performs a pending resize). Returns the insertion indexes in iteration
    order, or None when some bin reached :data:`_TREEIFY_THRESHOLD` nodes at some point (a tree
    bin, or an early resize of a small table): replay :class:`JavaHashMapOrder` then.

    Without tree bins the order has a closed form: bins are visited by index
    (``spread(hash) & (capacity - 1)``) and a bin lists its keys newest first, because
    ``computeIfAbsent`` inserts at the head and ``resize`` splits bins preserving their order.
    The capacity is 16, doubled before an insertion that finds ``size > threshold`` (0.75 x
    capacity); bins only grow between resizes, so checking every bin's size just before each
    resize (and at the end) proves that no bin ever reached eight nodes.
    """
    import numpy as np

    h = np.asarray(hash_codes, dtype=np.uint32)
    n = len(h)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    spread = (h ^ (h >> np.uint32(16))).astype(np.int64)
    cap, threshold = 16, 12
    while True:
        end = min(n, threshold + 1)
        if np.bincount(spread[:end] & (cap - 1), minlength=1).max() >= _TREEIFY_THRESHOLD:
            return None
        if end == n:
            break
        cap, threshold = cap * 2, threshold * 2
    if trailing_access and n > threshold:
        cap *= 2
    return np.lexsort((-np.arange(n), spread & (cap - 1)))
