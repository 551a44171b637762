import { describe, expect, it } from 'vitest';
import { sniffContent } from '../../../src/host/capabilities/fs/sniff.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('sniffContent', () => {
  it.each([
    '-----BEGIN RSA PRIVATE KEY-----\nMIIE...\n',
    '-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blb...\n',
    '-----BEGIN PRIVATE KEY-----\n',
    '-----BEGIN ENCRYPTED PRIVATE KEY-----\n',
    '-----BEGIN EC PRIVATE KEY-----\n',
    '-----BEGIN PGP PRIVATE KEY BLOCK-----\n',
    '\ufeff\n  -----BEGIN PRIVATE KEY-----\n',
    '-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n-----BEGIN PRIVATE KEY-----\nMII\n',
    'PuTTY-User-Key-File-3: ssh-ed25519\n',
  ])('finds a private key in %j', (text) => {
    expect(sniffContent(bytes(text))).toBe('private-key');
  });

  it.each([
    '-----BEGIN CERTIFICATE-----\nMIIC\n',
    '-----BEGIN PUBLIC KEY-----\n',
    '# How to make a key\n-----BEGIN RSA PRIVATE KEY-----\n',
    'export const x = 1;\n',
    '{"name": "a"}\n',
    '',
  ])('leaves %j alone', (text) => {
    expect(sniffContent(bytes(text))).toBeUndefined();
  });

  it.each([
    '{"type":"header","version":1,"agentId":"explore-1","at":1}\n',
    '{"prev":"0000000000000000000000000000000000000000000000000000000000000000","at":1}\n',
    '{"v":1,"request":{"model":"m","system":"s"}}\n',
  ])("recognises cadre's own records: %j", (text) => {
    expect(sniffContent(bytes(text))).toBe('cadre-record');
  });
});

describe('sniffContent on copies edited to hide', () => {
  it('still recognises a record after leading whitespace or a byte-order mark', () => {
    expect(sniffContent(bytes(' \n{"type":"header","version":1,"agentId":"a"}\n'))).toBe('cadre-record');
    expect(sniffContent(bytes('\ufeff{"prev":"' + '0'.repeat(64) + '","at":1}\n'))).toBe('cadre-record');
  });
});
