import { BlockList, isIP } from 'node:net';

/** One address or CIDR subnet of an allow-list setting. */
export interface Subnet {
  readonly address: string;
  readonly prefix: number;
  readonly family: 'ipv4' | 'ipv6';
}

/**
 * Parses a comma-separated list of addresses and CIDR subnets (`10.0.0.0/8, ::1`); throws an
 * `Error` naming the first entry that is neither.
 */
export function parseSubnets(list: string): Subnet[] {
  const subnets: Subnet[] = [];
  for (const raw of list.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const [address = '', prefixText, extra] = entry.split('/');
    const version = isIP(address);
    const max = version === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? max : Number(prefixText);
    if (
      version === 0 ||
      extra !== undefined ||
      (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) ||
      prefix > max
    ) {
      throw new Error(`has "${entry}", which is not an address or a CIDR subnet`);
    }
    subnets.push({ address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' });
  }
  if (subnets.length === 0) throw new Error('names no address or subnet');
  return subnets;
}

/**
 * Node's own matcher over the subnets. An IPv4 client reached on an IPv6 socket shows as
 * `::ffff:a.b.c.d`, which matches the IPv4 entries too.
 */
export function subnetMatcher(subnets: readonly Subnet[]): (address: string) => boolean {
  const list = new BlockList();
  for (const s of subnets) list.addSubnet(s.address, s.prefix, s.family);
  return (address) => {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    if (mapped) return list.check(mapped, 'ipv4') || list.check(address, 'ipv6');
    const version = isIP(address);
    return version !== 0 && list.check(address, version === 4 ? 'ipv4' : 'ipv6');
  };
}
