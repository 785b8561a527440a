import { describe, expect, test } from 'vitest';
import { clientAddress, normaliseAddress, parseTrustedProxies } from '../../src/client-address.ts';

describe('normaliseAddress', () => {
  test.each([
    ['203.0.113.7', '203.0.113.7'],
    [' 203.0.113.7 ', '203.0.113.7'],
    ['203.0.113.7:51234', '203.0.113.7'],
    ['2001:DB8::1', '2001:db8::1'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['[2001:db8::1]:443', '2001:db8::1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['::ffff:198.51.100.2', '198.51.100.2'],
    ['::FFFF:198.51.100.2', '198.51.100.2'],
    ['::ffff:c633:6402', '198.51.100.2'],
    ['::1', '::1'],
  ])('%s -> %s', (raw, plain) => {
    expect(normaliseAddress(raw)).toBe(plain);
  });

  test.each([[''], ['unknown'], ['1.2.3'], ['256.1.1.1'], ['evil.example'], ['1.2.3.4, 5.6.7.8'], [undefined], [null]])(
    '%s is not an address',
    (raw) => {
      expect(normaliseAddress(raw)).toBeUndefined();
    },
  );
});

describe('parseTrustedProxies', () => {
  test('IPs and CIDRs of both families; none by default', () => {
    const trusted = parseTrustedProxies('10.0.0.0/8, 192.168.1.5 ,fd00::/8,::1');
    expect(['10.2.3.4', '192.168.1.5', 'fd12::9', '::1'].map((ip) => trusted.has(ip))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['11.0.0.1', '192.168.1.6', 'fe80::1', '2001:db8::1'].map((ip) => trusted.has(ip))).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(parseTrustedProxies(undefined).has('127.0.0.1')).toBe(false);
    expect(parseTrustedProxies('').list).toEqual([]);
  });

  test.each([['10.0.0.0/33'], ['proxy.local'], ['10.0.0.1/8/2'], ['::1/129'], ['10.0.0.0/x']])(
    '%s is refused with a message naming it',
    (value) => {
      expect(() => parseTrustedProxies(value)).toThrow(`TRUSTED_PROXIES: "${value}" is not an IP address or CIDR`);
    },
  );
});

describe('clientAddress', () => {
  const none = parseTrustedProxies('');
  const proxies = parseTrustedProxies('10.0.0.0/8, 2001:db8:ffff::/48');

  test.each([
    ['no trusted proxies: the peer, whatever the header says', '203.0.113.7', '1.1.1.1', none, '203.0.113.7'],
    ['a spoofed header from a peer that is not a proxy is ignored', '203.0.113.7', '10.0.0.1', proxies, '203.0.113.7'],
    ['no header: the peer', '203.0.113.7', undefined, proxies, '203.0.113.7'],
    ['a trusted proxy: the entry it added', '10.0.0.2', '198.51.100.9', proxies, '198.51.100.9'],
    [
      'a trusted proxy behind a client that wrote its own header: the rightmost entry',
      '10.0.0.2',
      '6.6.6.6, 198.51.100.9',
      proxies,
      '198.51.100.9',
    ],
    [
      'a chain of trusted proxies is walked from the right',
      '10.0.0.2',
      '198.51.100.9, 10.1.1.1, 10.2.2.2',
      proxies,
      '198.51.100.9',
    ],
    [
      'the walk stops at the first untrusted entry, so what the client wrote further left is not read',
      '10.0.0.2',
      '6.6.6.6, 198.51.100.9, 10.1.1.1',
      proxies,
      '198.51.100.9',
    ],
    ['every entry trusted: the leftmost', '10.0.0.2', '10.9.9.9, 10.1.1.1', proxies, '10.9.9.9'],
    [
      'a garbled entry ends the walk at the last trusted hop',
      '10.0.0.2',
      '198.51.100.9, nonsense',
      proxies,
      '10.0.0.2',
    ],
    ['an empty header from a trusted proxy: the proxy', '10.0.0.2', '', proxies, '10.0.0.2'],
    ['IPv4-mapped peer counts as its IPv4 address', '::ffff:10.0.0.2', '198.51.100.9', proxies, '198.51.100.9'],
    ['IPv4-mapped peer that is not a proxy', '::ffff:203.0.113.7', '198.51.100.9', proxies, '203.0.113.7'],
    ['IPv6 proxy and IPv6 client', '2001:db8:ffff::10', '2001:db8:1::42', proxies, '2001:db8:1::42'],
    ['IPv6 client through an IPv4 proxy, with a port', '10.0.0.2', '[2001:db8:1::42]:5000', proxies, '2001:db8:1::42'],
    ['IPv6 peer outside the trusted range', '2001:db8:1::10', '198.51.100.9', proxies, '2001:db8:1::10'],
  ])('%s', (_name, peer, header, trusted, expected) => {
    expect(clientAddress(peer, header, trusted)).toBe(expected);
  });

  test('no peer (a request made in-process): no address', () => {
    expect(clientAddress(undefined, '198.51.100.9', proxies)).toBeUndefined();
  });
});
