"""An independent PNG reader on Python's standard library (zlib), for the end-to-end tests.

Reads a PNG from stdin, checks the signature, every chunk's CRC-32 and the zlib stream
(Adler-32 included), undoes the five row filters, and prints one JSON line:
{"width", "height", "color_type", "bit_depth", "chunks", "pixels_sha256", "ink"} where "ink" is
the share of pixels that are not white. With --thumb OUT it also writes a half-size (box filter)
copy to OUT, which is how a host shows a 800x400 chart as a 400x200 thumbnail.
"""
import hashlib, json, struct, sys, zlib


def read(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "bad signature"
    pos, chunks, idat = 8, [], b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert zlib.crc32(kind + body) == crc, "bad CRC in %r" % kind
        chunks.append(kind.decode())
        if kind == b"IHDR":
            w, h, depth, ctype, comp, filt, inter = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    assert chunks[0] == "IHDR" and chunks[-1] == "IEND", chunks
    assert (depth, ctype, comp, filt, inter) == (8, 2, 0, 0, 0), "only 8-bit RGB is expected"
    raw = zlib.decompress(idat)
    stride = w * 3
    assert len(raw) == h * (stride + 1), "wrong decompressed size"
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - 3] if i >= 3 else 0
            b = prev[i]
            c = prev[i - 3] if i >= 3 else 0
            if f == 0:
                p = 0
            elif f == 1:
                p = a
            elif f == 2:
                p = b
            elif f == 3:
                p = (a + b) // 2
            elif f == 4:
                q = a + b - c
                pa, pb, pc = abs(q - a), abs(q - b), abs(q - c)
                p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            else:
                raise AssertionError("bad filter %d" % f)
            line[i] = (line[i] + p) & 0xFF
        rows.append(bytes(line))
        prev = line
    return w, h, chunks, rows


def write(path, w, h, rows):
    raw = b"".join(b"\x00" + r for r in rows)
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    open(path, "wb").write(png)


def main():
    w, h, chunks, rows = read(sys.stdin.buffer.read())
    pixels = b"".join(rows)
    ink = sum(1 for i in range(0, len(pixels), 3) if pixels[i:i + 3] != b"\xff\xff\xff") / (w * h)
    print(json.dumps({"width": w, "height": h, "color_type": 2, "bit_depth": 8, "chunks": chunks,
                      "pixels_sha256": hashlib.sha256(pixels).hexdigest(), "ink": round(ink, 4)}))
    if len(sys.argv) == 3 and sys.argv[1] == "--thumb":
        half = []
        for y in range(h // 2):
            r0, r1, out = rows[2 * y], rows[2 * y + 1], bytearray()
            for x in range(w // 2):
                for ch in range(3):
                    i = 6 * x + ch
                    out.append((r0[i] + r0[i + 3] + r1[i] + r1[i + 3] + 2) // 4)
            half.append(bytes(out))
        write(sys.argv[2], w // 2, h // 2, half)


main()
