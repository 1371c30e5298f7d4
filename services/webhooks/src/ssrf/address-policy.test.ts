import { describe, expect, it } from 'vitest';
import { nonPublicReason, unmapIpv4 } from './address-policy.js';

describe('address policy - what a webhook may be sent to', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fd12:3456::1', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['[::1]', 'loopback'],
    ['fe80::1%eth0', 'link-local'],
  ])('refuses %s (%s)', (address, why) => {
    expect(nonPublicReason(address)).toBe(why);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:93.184.216.34'])('accepts %s', (address) => {
    expect(nonPublicReason(address)).toBeUndefined();
  });

  it('refuses what is no IP address', () => {
    expect(nonPublicReason('localhost')).toBe('not an IP address');
  });

  it('unmaps IPv4-mapped IPv6 addresses in both spellings', () => {
    expect(unmapIpv4('::ffff:192.168.0.1')).toBe('192.168.0.1');
    expect(unmapIpv4('::ffff:c0a8:0001')).toBe('192.168.0.1');
    expect(unmapIpv4('2001:db8::1')).toBe('2001:db8::1');
  });
});
