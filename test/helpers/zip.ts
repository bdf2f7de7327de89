/**
 * ZIP archives as a forger would make them, for the tests of the strict reading of evidence
 * packs: entries in the order given (a name twice if asked, folder entries), each stored as it is
 * (method 0), with a local header whose name may differ from its directory entry's. fflate's
 * writers cannot make these (`zipSync` takes a map of names; the streaming `Zip` writes data
 * descriptors), so the few bytes of the format are written here, from APPNOTE.TXT 4.3.
 */

/** CRC-32 (ISO-HDLC, polynomial 0xEDB88320), as a ZIP entry's headers state it. */
function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}

export interface ForgedEntry {
  name: string;
  bytes: Uint8Array;
  /** The name its local header gives instead (the central directory keeps `name`). */
  localName?: string;
}

export function zipOf(entries: ReadonlyArray<ForgedEntry>, options: { gap?: number } = {}) {
  const locals: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const { name, bytes, localName } of entries) {
    const nameBytes = Buffer.from(name, 'utf8');
    const localNameBytes = Buffer.from(localName ?? name, 'utf8');
    const crc = crc32(bytes);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(bytes.length, 18);
    local.writeUInt32LE(bytes.length, 22);
    local.writeUInt16LE(localNameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(bytes.length, 20);
    central.writeUInt32LE(bytes.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, localNameBytes, Buffer.from(bytes));
    directory.push(central, nameBytes);
    offset += local.length + localNameBytes.length + bytes.length;
  }
  // Bytes between the last entry and the directory, which no entry accounts for.
  const gap = Buffer.alloc(options.gap ?? 0, 0x20);
  const directoryBytes = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directoryBytes.length, 12);
  end.writeUInt32LE(offset + gap.length, 16);
  return new Uint8Array(Buffer.concat([...locals, gap, directoryBytes, end]));
}
