/**
 * Reads an evidence pack's ZIP archive strictly, so that what the verifier checks is what every
 * ZIP tool shows. A ZIP names its files twice (a local header before each file's bytes, and the
 * central directory at the end), and tools differ on which they read: a second entry of one
 * name, a local header whose name differs from the directory's, or bytes no directory entry
 * points at can each show a reader a text the verifier never saw. So an archive is read only
 * when every byte belongs to exactly one entry the central directory lists, in order, each
 * local header agrees with its directory entry, and every name is a plain relative file path
 * given once. ZIP tools have no such strict mode (they read what they can), hence this reader;
 * the bytes are inflated by fflate. A file's integrity is its SHA-256 in the signed manifest,
 * checked after this; the CRC-32 of each entry is only compared between its two headers.
 */
import { inflateSync } from 'fflate';

/** A reason an archive or one of its entries is refused (`entry`: the name, when one is). */
export interface ZipProblem {
  entry?: string;
  reason: string;
}

export interface ZipContents {
  /** Each entry's bytes by name (only entries that passed). */
  files: Map<string, Uint8Array>;
  problems: ZipProblem[];
}

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
/** Bit 0: encrypted; bit 3: sizes in a data descriptor after the bytes. A pack uses neither. */
const REFUSED_FLAGS = 0x0001 | 0x0008;
const names = new TextDecoder('utf-8', { fatal: true });

interface Entry {
  name: string;
  nameBytes: Uint8Array;
  flags: number;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

export function readZipStrictly(bytes: Uint8Array): ZipContents {
  const problems: ZipProblem[] = [];
  const files = new Map<string, Uint8Array>();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEndOfDirectory(view);
  if (end === undefined) {
    return { files, problems: [{ reason: 'not a ZIP archive (no end of central directory)' }] };
  }
  const count = view.getUint16(end + 10, true);
  const directorySize = view.getUint32(end + 12, true);
  const directoryOffset = view.getUint32(end + 16, true);
  if (
    view.getUint16(end + 4, true) !== 0 ||
    view.getUint16(end + 6, true) !== 0 ||
    view.getUint16(end + 8, true) !== count
  ) {
    return { files, problems: [{ reason: 'a multi-part archive, which a pack never is' }] };
  }
  if (directoryOffset + directorySize !== end) {
    return { files, problems: [{ reason: 'its central directory does not end where it says' }] };
  }
  const entries = readDirectory(view, directoryOffset, end, count, problems);
  if (entries === undefined) return { files, problems };
  checkNames(entries, problems);
  const sorted = [...entries].sort((a, b) => a.localOffset - b.localOffset);
  let expected = 0;
  for (const entry of sorted) {
    if (entry.localOffset !== expected) {
      problems.push({ reason: `bytes ${expected} to ${entry.localOffset} belong to no entry` });
    }
    const data = readLocal(view, bytes, entry, problems);
    expected = data ? data.end : Math.max(expected, entry.localOffset);
    if (data && !problems.some((p) => p.entry === entry.name)) {
      const inflated = contents(entry, data.bytes);
      if (typeof inflated === 'string') problems.push({ entry: entry.name, reason: inflated });
      else files.set(entry.name, inflated);
    }
  }
  if (expected !== directoryOffset) {
    problems.push({ reason: `bytes ${expected} to ${directoryOffset} belong to no entry` });
  }
  return { files, problems };
}

/** The end-of-central-directory record: the last 22 bytes and its comment, nothing after. */
function findEndOfDirectory(view: DataView): number | undefined {
  const last = view.byteLength - 22;
  for (let at = last; at >= 0 && at >= last - 0xffff; at--) {
    if (view.getUint32(at, true) !== END_OF_DIRECTORY) continue;
    if (at + 22 + view.getUint16(at + 20, true) === view.byteLength) return at;
  }
  return undefined;
}

function readDirectory(
  view: DataView,
  start: number,
  end: number,
  count: number,
  problems: ZipProblem[],
): Entry[] | undefined {
  const entries: Entry[] = [];
  let at = start;
  for (let index = 0; index < count; index++) {
    if (at + 46 > end || view.getUint32(at, true) !== DIRECTORY_ENTRY) {
      problems.push({ reason: `central directory entry ${index + 1} is malformed` });
      return undefined;
    }
    const nameLength = view.getUint16(at + 28, true);
    const next =
      at + 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    if (next > end) {
      problems.push({ reason: `central directory entry ${index + 1} is malformed` });
      return undefined;
    }
    const nameBytes = new Uint8Array(view.buffer, view.byteOffset + at + 46, nameLength);
    const name = decodeName(nameBytes);
    if (name === undefined) {
      problems.push({ reason: `central directory entry ${index + 1} has a name not in UTF-8` });
      return undefined;
    }
    entries.push({
      name,
      nameBytes,
      flags: view.getUint16(at + 8, true),
      method: view.getUint16(at + 10, true),
      crc: view.getUint32(at + 16, true),
      compressedSize: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      localOffset: view.getUint32(at + 42, true),
    });
    at = next;
  }
  if (at !== end) {
    problems.push({ reason: 'the central directory holds more than its entries' });
    return undefined;
  }
  return entries;
}

function decodeName(bytes: Uint8Array): string | undefined {
  try {
    return names.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Every name a plain relative file path, given once (also once ignoring case and form). */
function checkNames(entries: readonly Entry[], problems: ZipProblem[]): void {
  const seen = new Map<string, string>();
  for (const { name } of entries) {
    const trick = pathTrick(name);
    if (trick) problems.push({ entry: name, reason: trick });
    const folded = name.normalize('NFC').toLowerCase();
    const earlier = seen.get(folded);
    if (earlier === name) {
      problems.push({ entry: name, reason: 'is in the archive more than once' });
    } else if (earlier !== undefined) {
      problems.push({ entry: name, reason: `is the name of ${earlier} but for case or form` });
    } else {
      seen.set(folded, name);
    }
  }
}

function pathTrick(name: string): string | undefined {
  if (name.endsWith('/')) return 'is a folder entry, which a pack never has';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'is an absolute path';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
  if (/[\\\u0000-\u001f\u007f]/.test(name)) return 'has a backslash or a control character';
  if (name.split('/').some((part) => part === '' || part === '.' || part === '..')) {
    return 'has an empty, "." or ".." part';
  }
  return undefined;
}

/** The entry's local header, checked against its directory entry, and its stored bytes. */
function readLocal(
  view: DataView,
  bytes: Uint8Array,
  entry: Entry,
  problems: ZipProblem[],
): { bytes: Uint8Array; end: number } | undefined {
  const at = entry.localOffset;
  if (at + 30 > view.byteLength || view.getUint32(at, true) !== LOCAL_HEADER) {
    problems.push({ entry: entry.name, reason: 'has no local header where the directory says' });
    return undefined;
  }
  const nameLength = view.getUint16(at + 26, true);
  const start = at + 30 + nameLength + view.getUint16(at + 28, true);
  const end = start + entry.compressedSize;
  if (end > view.byteLength) {
    problems.push({ entry: entry.name, reason: 'runs past the end of the archive' });
    return undefined;
  }
  const localName = bytes.subarray(at + 30, at + 30 + nameLength);
  const agrees =
    localName.length === entry.nameBytes.length &&
    localName.every((byte, index) => byte === entry.nameBytes[index]) &&
    view.getUint16(at + 6, true) === entry.flags &&
    view.getUint16(at + 8, true) === entry.method &&
    view.getUint32(at + 14, true) === entry.crc &&
    view.getUint32(at + 18, true) === entry.compressedSize &&
    view.getUint32(at + 22, true) === entry.size;
  if (!agrees) {
    problems.push({
      entry: entry.name,
      reason: 'its local header does not agree with the central directory',
    });
  }
  return { bytes: bytes.subarray(start, end), end };
}

/** The entry's bytes, or why they cannot be read. */
function contents(entry: Entry, stored: Uint8Array): Uint8Array | string {
  if (entry.flags & REFUSED_FLAGS) return 'is encrypted or has a data descriptor';
  let bytes: Uint8Array;
  if (entry.method === 0) bytes = stored;
  else if (entry.method === 8) {
    try {
      bytes = inflateSync(stored);
    } catch (error) {
      return `does not inflate (${(error as Error).message})`;
    }
  } else return `is stored with method ${entry.method}, neither stored nor deflated`;
  return bytes.length === entry.size ? bytes : 'is not the size the directory says';
}
