import { describe, expect, test } from 'vitest';
import { addressKey, clientIp } from '../../../supabase/functions/_shared/client-ip.ts';
import { createRateLimiter, refuseOverLimit } from '../../../supabase/functions/_shared/rate-limit.ts';

describe('addressKey: what a per-address limit counts', () => {
  test.each([
    // IPv4 as it is.
    ['192.0.2.1', '192.0.2.1'],
    ['198.51.100.255', '198.51.100.255'],
    // IPv6 by its /64, whatever form it comes in.
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:DB8:1:2:FFFF:FFFF:FFFF:FFFF', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:0000:0000:0000:0001', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8::/64'],
    ['2001:db8:0:0:1::', '2001:db8::/64'],
    ['2001:0:0:1::9', '2001:0:0:1::/64'],
    ['0:0:0:1::', '0:0:0:1::/64'],
    ['::1', '::/64'],
    ['::', '::/64'],
    ['1:2:3:4:5:6:7::', '1:2:3:4::/64'],
    ['::2:3:4:5:6:7:8', '0:2:3:4::/64'],
    // An IPv4 tail on an IPv6 address counts in its groups.
    ['64:ff9b:1:2::192.0.2.1', '64:ff9b:1:2::/64'],
    ['2001:db8:1:2:3:4:192.0.2.1', '2001:db8:1:2::/64'],
    // IPv4-mapped IPv6: the IPv4 address it carries, counted with that address.
    ['::ffff:192.0.2.1', '192.0.2.1'],
    ['::FFFF:192.0.2.1', '192.0.2.1'],
    ['::ffff:c000:201', '192.0.2.1'],
    ['0:0:0:0:0:ffff:c000:0201', '192.0.2.1'],
    // A zone id names an interface of the host that saw the address: dropped.
    ['fe80::1%eth0', 'fe80::/64'],
    ['fe80::1234:5678%25', 'fe80::/64'],
    ['2001:db8:1:2::1%en0', '2001:db8:1:2::/64'],
    // Not an address: the shared bucket.
    ['unknown', 'unknown'],
    ['', 'unknown'],
    ['256.1.1.1', 'unknown'],
    ['1.2.3', 'unknown'],
    ['1:2:3:4:5:6:7:8:9', 'unknown'],
    ['1::2::3', 'unknown'],
    ['12345::1', 'unknown'],
    ['1:2:3:4:5:6:7:8::', 'unknown'],
    ['::ffff:1.2.3.256', 'unknown'],
    ['g::1', 'unknown'],
    [':1::2', 'unknown'],
  ])('%j counts as %j', (ip, key) => {
    expect(addressKey(ip)).toBe(key);
  });
});

describe('clientIp: the address in CF-Connecting-IP', () => {
  const ipOf = (value?: string) =>
    clientIp(
      new Request('http://functions.local/', { headers: value === undefined ? {} : { 'CF-Connecting-IP': value } }),
    );

  test.each([
    ['192.0.2.1', '192.0.2.1'],
    [' 2001:db8::1 ', '2001:db8::1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['not an address', 'unknown'],
    ['2001:db8::1, 192.0.2.1', 'unknown'],
    [undefined, 'unknown'],
  ])('%j reads as %j', (header, ip) => {
    expect(ipOf(header)).toBe(ip);
  });
});

describe('refuseOverLimit counts a caller by its addressKey', () => {
  test('addresses of one IPv6 /64 share a count, the next /64 and IPv4 have their own, a mapped IPv4 is the IPv4', async () => {
    const limiter = createRateLimiter({ max: 2, windowMs: 60_000 });
    const status = async (ip: string) => (await refuseOverLimit(limiter, ip))?.status ?? 200;
    expect(await status('2001:db8:1:2::1')).toBe(200);
    expect(await status('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe(200);
    expect(await status('2001:0DB8:0001:0002::ffff')).toBe(429);
    expect(await status('2001:db8:1:3::1')).toBe(200);
    expect(await status('192.0.2.7')).toBe(200);
    expect(await status('::ffff:192.0.2.7')).toBe(200);
    expect(await status('::ffff:c000:207')).toBe(429);
  });
});
