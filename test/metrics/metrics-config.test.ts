import { describe, expect, it } from 'vitest';
import { metricsEnabled } from '../../src/metrics/guard.js';
import { ConfigError, loadConfig, tracingSettings } from '../../src/platform/config.js';
import { parseSubnets, subnetMatcher } from '../../src/platform/subnets.js';

describe('metrics and traces settings', () => {
  it('serves /metrics only with METRICS_TOKEN or METRICS_ALLOW', () => {
    expect(metricsEnabled(loadConfig({}))).toBe(false);
    expect(metricsEnabled(loadConfig({ METRICS_TOKEN: 'a'.repeat(16) }))).toBe(true);
    expect(metricsEnabled(loadConfig({ METRICS_ALLOW: '127.0.0.1' }))).toBe(true);
  });

  it('refuses a short token, and an allow-list entry that is not an address or subnet, naming it', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
    for (const bad of ['10.0.0.0/33', 'localhost', '10.0.0.1/8/2', '::1/129', ' , ']) {
      expect(() => loadConfig({ METRICS_ALLOW: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ METRICS_ALLOW: bad }), bad).toThrow(/METRICS_ALLOW/);
    }
  });

  it('reads WEBHOOK_ALLOWED_NETWORKS with the same parser, and refuses a bad range naming it', () => {
    expect(loadConfig({}).webhooks.allowedNetworks).toEqual([]);
    expect(
      loadConfig({ WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/8, fd00::/8' }).webhooks.allowedNetworks,
    ).toEqual([
      { address: '10.0.0.0', prefix: 8, family: 'ipv4' },
      { address: 'fd00::', prefix: 8, family: 'ipv6' },
    ]);
    for (const bad of ['10.0.0.0/33', 'internal.example', '10.0.0.1/8/2', ' , ']) {
      expect(() => loadConfig({ WEBHOOK_ALLOWED_NETWORKS: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ WEBHOOK_ALLOWED_NETWORKS: bad }), bad).toThrow(
        /WEBHOOK_ALLOWED_NETWORKS/,
      );
    }
  });

  it('matches addresses against subnets, IPv4 clients on IPv6 sockets included', () => {
    const allowed = subnetMatcher(parseSubnets('10.0.0.0/8, 192.0.2.7, 2001:db8::/32'));
    for (const address of [
      '10.0.0.1',
      '10.255.255.255',
      '192.0.2.7',
      '::ffff:10.2.3.4',
      '2001:db8::1',
    ]) {
      expect(allowed(address), address).toBe(true);
    }
    for (const address of ['11.0.0.1', '192.0.2.8', '::ffff:11.0.0.1', '2001:db9::1', '::1', 'x']) {
      expect(allowed(address), address).toBe(false);
    }
  });

  it('turns traces on with an exporter or an OTLP endpoint, and OTEL_SDK_DISABLED wins', () => {
    expect(tracingSettings({})).toBeUndefined();
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp' })).toEqual({
      serviceName: 'consent-service',
    });
    expect(
      tracingSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
        OTEL_SERVICE_NAME: 'consent-eu',
      }),
    ).toEqual({ serviceName: 'consent-eu' });
    expect(
      tracingSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }),
    ).toBeDefined();
    expect(
      tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'TRUE' }),
    ).toBeUndefined();
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'otlp' }).tracing).toBe(true);
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' }).tracing).toBe(
      false,
    );
    expect(loadConfig({}).tracing).toBe(false);
  });
});
