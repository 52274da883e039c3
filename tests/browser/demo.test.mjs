// The served demo (scripts/demo --serve) in a real browser: Debian's headless Chromium, driven by
// playwright-core. Logs in as the demo's owner, asks Assist to turn on the living-room lights (and
// checks over REST that they are on, and that our conversation agent answered), and opens the
// profile page. Screenshots go to artifacts/browser/. Run by scripts/test after pytest:
//   node --test tests/browser/
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

const REPOSITORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const ARTIFACTS = path.join(REPOSITORY, 'artifacts', 'browser');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
const USERNAME = 'demo';
const PASSWORD = 'demo-password';
const OWNER = 'Demo'; // the owner's name, shown in the sidebar and on the profile page
const AGENT = process.env.ASSIST_AGENT ?? 'conversation.context_retrieval';
const UTTERANCE = '打开客厅的灯';
const LIVING_ROOM = '客厅';
const START_TIMEOUT_MS = 240_000; // the demo serves in about 10 s once set up
const STOP_TIMEOUT_MS = 90_000;
const STEP_TIMEOUT_MS = 20_000;
const LLM_VARIABLES = ['LLM_BASE_URL', 'LLM_API_KEY', 'LLM_MODEL'];

let demo; // { process, output, baseUrl, state }
let browserProfile; // the browser's fresh profile directory
let context; // the browser's persistent context on it
let page;
let token; // a REST access token of the demo's owner
const pipelineEvents = []; // events of the Assist pipeline runs the page starts

/** Return a TCP port on 127.0.0.1 that nothing listens on right now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Start `scripts/python -m demo --serve` on `port` with the fresh `state`; resolve once it serves. */
function startDemo(port, state) {
  const env = { ...process.env };
  for (const name of LLM_VARIABLES) delete env[name];
  const child = spawn(
    path.join(REPOSITORY, 'scripts', 'python'),
    ['-m', 'demo', '--serve', '--port', String(port), '--state', state],
    { cwd: REPOSITORY, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const started = { process: child, output: '', baseUrl: `http://127.0.0.1:${port}`, state };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.kill(-child.pid, 'SIGINT'); // it stops Home Assistant, if it started it
      reject(new Error(`the demo did not serve within ${START_TIMEOUT_MS} ms:\n${started.output}`));
    }, START_TIMEOUT_MS);
    const read = (chunk) => {
      started.output += chunk;
      if (started.output.includes('Ctrl-C stops it.')) {
        clearTimeout(timer);
        resolve(started);
      }
    };
    child.stdout.setEncoding('utf8').on('data', read);
    child.stderr.setEncoding('utf8').on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the demo exited (code ${code}) before serving:\n${started.output}`));
    });
  });
}

/** Stop the demo as Ctrl-C would (it then stops Home Assistant in order); resolve with its exit code. */
function stopDemo(started) {
  const child = started.process;
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      process.kill(-child.pid, 'SIGKILL');
    }, STOP_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    process.kill(-child.pid, 'SIGINT');
  });
}

/** Return the JSON answer of one REST request to the demo (authenticated once `token` is known). */
async function rest(method, route, body) {
  const headers = { 'Content-Type': 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(`${demo.baseUrl}${route}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(STEP_TIMEOUT_MS),
  });
  const text = await response.text();
  assert.ok(response.ok, `${method} ${route}: HTTP ${response.status}: ${text}`);
  return text ? JSON.parse(text) : null;
}

/** Log in over REST (the login flow the login page uses) and keep the access token. */
async function logInOverRest() {
  const clientId = `${demo.baseUrl}/`;
  const redirectUri = `${clientId}?auth_callback=1`;
  const flow = await rest('POST', '/auth/login_flow', {
    client_id: clientId,
    handler: ['homeassistant', null],
    redirect_uri: redirectUri,
  });
  const result = await rest('POST', `/auth/login_flow/${flow.flow_id}`, {
    client_id: clientId,
    username: USERNAME,
    password: PASSWORD,
  });
  assert.equal(result.type, 'create_entry', JSON.stringify(result));
  const response = await fetch(`${demo.baseUrl}/auth/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', code: result.result, client_id: clientId }),
    signal: AbortSignal.timeout(STEP_TIMEOUT_MS),
  });
  assert.ok(response.ok, `POST /auth/token: HTTP ${response.status}`);
  token = (await response.json()).access_token;
}

/** Return the states of the living-room lights (the area's light entities, read through a template). */
async function livingRoomLights() {
  const template = `{{ area_entities('${LIVING_ROOM}') | select('match', 'light\\.') | list | to_json }}`;
  const response = await fetch(`${demo.baseUrl}/api/template`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ template }),
    signal: AbortSignal.timeout(STEP_TIMEOUT_MS),
  });
  assert.ok(response.ok, `POST /api/template: HTTP ${response.status}`);
  const ids = JSON.parse(await response.text());
  return Object.fromEntries(
    await Promise.all(ids.map(async (id) => [id, (await rest('GET', `/api/states/${id}`)).state])),
  );
}

/** Poll `check` until it returns a truthy value or `timeout` ms pass; return its last value. */
async function waitFor(check, timeout = STEP_TIMEOUT_MS) {
  const deadline = Date.now() + timeout;
  let value = await check();
  while (!value && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    value = await check();
  }
  return value;
}

/** Keep the Assist pipeline events the page receives over its websocket. */
function recordPipelineEvents(socket) {
  socket.on('framereceived', ({ payload }) => {
    let messages;
    try {
      messages = [JSON.parse(String(payload))].flat();
    } catch {
      return;
    }
    for (const message of messages) {
      if (message?.type === 'event' && message.event?.type?.startsWith?.('intent-')) {
        pipelineEvents.push(message.event);
      }
    }
  });
}

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  // A fresh state inside the repository: the demo may run in a chroot that sees only the repository.
  const state = mkdtempSync(path.join(ARTIFACTS, 'state-'));
  demo = await startDemo(await freePort(), state);
  await logInOverRest();
  browserProfile = mkdtempSync(path.join(ARTIFACTS, 'chromium-profile-'));
  context = await chromium.launchPersistentContext(browserProfile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 800 },
    locale: 'zh-CN',
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  page.on('websocket', recordPipelineEvents);
});

after(async () => {
  await context?.close();
  if (browserProfile) rmSync(browserProfile, { recursive: true, force: true });
  if (demo) {
    const code = await stopDemo(demo);
    assert.equal(code, 0, `the demo stopped with code ${code}:\n${demo.output}`);
    rmSync(demo.state, { recursive: true, force: true }); // screenshots stay
  }
});

test('the demo owner logs in through the login page', async () => {
  await page.goto(`${demo.baseUrl}/`);
  await page.locator('input[name="username"]').fill(USERNAME);
  await page.locator('input[name="password"]').fill(PASSWORD);
  await page.keyboard.press('Enter');
  await page.waitForURL((url) => !url.pathname.startsWith('/auth'));
  await page.locator('ha-sidebar').waitFor();
  // No dialog waits for the user: the demo confirmed the HTTP settings Home Assistant tries out.
  const settings = await page.evaluate(() =>
    document.querySelector('home-assistant').hass.callWS({ type: 'http/config' }),
  );
  assert.equal(settings.pending, null);
  await page.screenshot({ path: path.join(ARTIFACTS, 'overview.png') });
});

test(`Assist turns on the living-room lights: ${UTTERANCE}`, async () => {
  const lights = Object.keys(await livingRoomLights());
  assert.ok(lights.length >= 2, `living-room lights: ${lights}`);
  await rest('POST', '/api/services/light/turn_off', { entity_id: lights });
  assert.ok(await waitFor(async () => Object.values(await livingRoomLights()).every((s) => s === 'off')));

  await page.keyboard.press('a'); // the frontend's shortcut for the Assist dialog
  const chat = page.locator('ha-voice-command-dialog ha-assist-chat');
  try {
    const input = chat.locator('div.input input');
    await input.fill(UTTERANCE);
    await input.press('Enter');
    await chat.locator('.message.user', { hasText: UTTERANCE }).waitFor();
    const states = await waitFor(async () => {
      const current = await livingRoomLights();
      return Object.values(current).every((state) => state === 'on') && current;
    });
    assert.ok(states, `living-room lights after ${UTTERANCE}: ${JSON.stringify(await livingRoomLights())}`);
    // The reply is Home Assistant's second message (the first is its greeting), shown as it streams in.
    const reply = chat.locator('.message.hass ha-markdown-element').nth(1);
    assert.ok(await waitFor(async () => (await reply.innerText()).trim()), 'Assist replied nothing');
    await page.screenshot({ path: path.join(ARTIFACTS, 'assist.png') });
  } finally {
    await page.keyboard.press('Escape');
    await chat.waitFor({ state: 'detached' });
  }
  const start = pipelineEvents.find((event) => event.type === 'intent-start');
  assert.equal(start?.data?.engine, AGENT, JSON.stringify(pipelineEvents));
});

test('the profile page renders', async () => {
  await page.locator('ha-sidebar').getByText(OWNER, { exact: true }).click();
  await page.waitForURL((url) => url.pathname.startsWith('/profile'));
  const profile = page.locator('ha-panel-profile');
  // The owner's card (badge, name), the theme card and the list of settings pages.
  await profile.locator('ha-user-badge').waitFor();
  await profile.getByText(OWNER).first().waitFor();
  await profile.locator('ha-config-navigation-list').waitFor();
  assert.ok((await profile.locator('ha-card').count()) >= 3);
  await page.screenshot({ path: path.join(ARTIFACTS, 'profile.png') });
});
