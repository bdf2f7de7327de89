/**
 * The accessibility check every browser test relies on (`accessibilityViolations` of
 * ./browser.ts): it must find what is wrong, in the page and in its same-origin frames, on the
 * first check of a document and on the next (axe-core's source is sent once a document).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, launchChromium } from './browser.js';

/** A page with two faults axe-core names: an image without a text and a field without a label. */
const faulty = `<!doctype html><html lang="en"><head><title>Faults</title></head><body>
<main><h1>Faults</h1><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" id="picture">
<input type="text" id="nameless">
<iframe title="Inner" src="/inner"></iframe>
</main></body></html>`;

/** The frame of the faulty page, from the same origin, with a fault of its own. */
const inner = `<!doctype html><html lang="en"><head><title>Inner</title></head><body>
<div><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" id="inner-picture"></div></body></html>`;

const clean = `<!doctype html><html lang="en"><head><title>Clean</title></head><body>
<main><h1>Clean</h1><label>Name <input type="text"></label></main></body></html>`;

describe('the accessibility check of the browser tests', () => {
  let browser: Browser;
  let page: Page;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const pages: Record<string, string> = { '/faulty': faulty, '/inner': inner, '/clean': clean };
    server = createServer((request, reply) => {
      const body = pages[request.url ?? ''];
      reply.writeHead(body ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
      reply.end(body ?? '');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('names each fault of the page and of its same-origin frame, on the first check and the next', async () => {
    await page.goto(`${base}/faulty`);
    const expected = [
      'image-alt (critical): #picture',
      'image-alt (critical): iframe #inner-picture',
      'label (critical): #nameless',
    ];
    expect((await accessibilityViolations(page)).sort()).toEqual(expected);
    await page.setViewportSize({ width: 390, height: 844 });
    expect((await accessibilityViolations(page)).sort()).toEqual(expected);
  });

  it('finds nothing on a page with nothing wrong, after a page that had faults', async () => {
    await page.goto(`${base}/clean`);
    expect(await accessibilityViolations(page)).toEqual([]);
  });
});
