// The PostgreSQL connection of Db.batch (src/db/pg-wire.ts): which URLs it takes, and its
// SCRAM-SHA-256 exchange checked against the example of RFC 7677 section 3.
import { describe, expect, test } from 'vitest';
import { Scram, wireTarget } from '../../src/db/pg-wire.ts';

describe('wireTarget', () => {
  test('a plain postgres:// URL: host, port, user, password, database', () => {
    expect(wireTarget('postgres://app:s%40cret@127.0.0.1:5433/signals')).toEqual({
      host: '127.0.0.1',
      port: 5433,
      user: 'app',
      password: 's@cret',
      database: 'signals',
    });
  });

  test('TLS or a socket folder is left to postgres.js', () => {
    expect(wireTarget('postgres://app@db.example.com/signals?sslmode=require')).toBeUndefined();
    expect(wireTarget('postgres://app@localhost/signals?host=/var/run/postgresql')).toBeUndefined();
    expect(wireTarget('postgres://app@db.example.com/signals?sslmode=disable')).toMatchObject({ port: 5432 });
  });
});

describe('Scram', () => {
  test("RFC 7677's example: the client's messages and the server's signature", () => {
    const scram = new Scram('pencil', 'rOprNGfwEbeRWgbNEkqO', 'user');
    expect(scram.clientFirst()).toBe('n,,n=user,r=rOprNGfwEbeRWgbNEkqO');
    const serverFirst = 'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096';
    expect(scram.clientFinal(serverFirst)).toBe(
      'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=',
    );
    expect(scram.verify('v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=')).toBe(true);
    expect(scram.verify('v=AAAA')).toBe(false);
  });

  test('a server nonce that does not extend the client one is refused', () => {
    expect(() => new Scram('pencil', 'abc').clientFinal('r=xyz,s=AAAA,i=4096')).toThrow(/nonce/);
  });
});
