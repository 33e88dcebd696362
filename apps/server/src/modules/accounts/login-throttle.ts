/**
 * Failed logins per client address across every email (password spraying: one password tried on
 * thousands of emails from one address). The route-level limit counts per address *and* email; this
 * one counts failures only, so a person who mistypes a few times is never touched. In memory: one
 * process's view (a restart forgets it; behind several processes each counts its own share).
 */
export class FailedLoginThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    readonly maxFailures: number,
    readonly windowMs: number,
    /** Addresses tracked at most; the oldest are forgotten first (a flood of addresses cannot grow memory). */
    private readonly maxAddresses = 100_000,
  ) {}

  /** Seconds until this address may try again, or 0 when it may try now. */
  retryAfter(address: string, now = Date.now()): number {
    const list = this.recent(address, now);
    if (list.length < this.maxFailures) return 0;
    const oldest = list[list.length - this.maxFailures] ?? now;
    return Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000));
  }

  fail(address: string, now = Date.now()): void {
    const list = this.recent(address, now);
    list.push(now);
    // Only the newest maxFailures matter for the answer.
    if (list.length > this.maxFailures) list.splice(0, list.length - this.maxFailures);
    this.failures.delete(address);
    this.failures.set(address, list);
    if (this.failures.size > this.maxAddresses) {
      const first = this.failures.keys().next().value;
      if (first !== undefined) this.failures.delete(first);
    }
  }

  private recent(address: string, now: number): number[] {
    const list = this.failures.get(address);
    if (!list) return [];
    const from = now - this.windowMs;
    let i = 0;
    while (i < list.length && (list[i] ?? 0) <= from) i++;
    if (i > 0) list.splice(0, i);
    return list;
  }
}

/**
 * The key a client address is counted under by the login limits: an IPv4 address as is (an IPv4-mapped
 * IPv6 address `::ffff:a.b.c.d` as its IPv4 form), an IPv6 address by its /64 — one host or one
 * customer's line usually holds a whole /64, so counting per /128 gave it 2^64 fresh addresses.
 */
export function addressKey(ip: string): string {
  const address = ip.trim().toLowerCase().replace(/%.*$/, '');
  if (!address.includes(':')) return address;
  // Node writes an IPv4 client on a dual-stack socket as ::ffff:a.b.c.d.
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(address);
  if (mapped?.[1]) return mapped[1];
  const groups = expandIpv6(address);
  if (!groups) return address;
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/** The 8 groups of an IPv6 address (4 hex digits each, no leading zeros), or null when it is not one. */
function expandIpv6(address: string): string[] | null {
  let text = address;
  // An embedded IPv4 tail (::a.b.c.d) is two groups.
  const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (groups.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.map((g) => parseInt(g, 16).toString(16));
}
