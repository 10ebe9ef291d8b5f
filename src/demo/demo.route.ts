import { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../http/http.reply';
import { DEMO_PAGE } from './demo.page';
import { DEMO_SCRIPT } from './demo.script';
import { DEMO_STYLES } from './demo.styles';
import { DASHBOARD_SCRIPT } from './dashboard.script';
import { APPROVALS_SCRIPT } from './approvals.script';
import { DEMO_KIT_SCRIPT } from './demo-kit.script';
import { AUDIT_SCRIPT } from './audit.script';
import { FINANCE_SCRIPT } from './finance.script';
import { RECONCILIATION_SCRIPT } from './reconciliation.script';
import { VERIFICATION_SCRIPT } from './verification.script';
import { SCHEDULE_SCRIPT } from './schedule.script';
import { BENEFICIARIES_SCRIPT } from './beneficiaries.script';

interface Asset {
  type: string;
  body: Buffer;
}

// Everything comes from this origin; 'self' also covers ws(s):// to the same host.
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const page: Asset = { type: 'text/html; charset=utf-8', body: Buffer.from(DEMO_PAGE) };
const assets = new Map<string, Asset>([
  ['/demo', page],
  ['/demo/', page],
  ['/demo/demo.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(DEMO_SCRIPT) }],
  ['/demo/kit.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(DEMO_KIT_SCRIPT) }],
  ['/demo/dashboard.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(DASHBOARD_SCRIPT) }],
  ['/demo/approvals.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(APPROVALS_SCRIPT) }],
  ['/demo/schedule.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(SCHEDULE_SCRIPT) }],
  ['/demo/beneficiaries.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(BENEFICIARIES_SCRIPT) }],
  ['/demo/audit.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(AUDIT_SCRIPT) }],
  ['/demo/finance.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(FINANCE_SCRIPT) }],
  ['/demo/reconciliation.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(RECONCILIATION_SCRIPT) }],
  ['/demo/verification.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(VERIFICATION_SCRIPT) }],
  ['/demo/demo.css', { type: 'text/css; charset=utf-8', body: Buffer.from(DEMO_STYLES) }],
]);

/** GET /demo: a payout form with a live status timeline, and a small dashboard, talking to this gateway's /graphql. */
export function handleDemo(req: IncomingMessage, res: ServerResponse): void {
  const asset = assets.get(new URL(req.url ?? '/', 'http://gateway').pathname);
  if (!asset) return sendJson(res, 404, { error: 'Not found' });
  if (req.method !== 'GET' && req.method !== 'HEAD')
    return sendJson(res, 405, { error: 'Method not allowed' }, { allow: 'GET, HEAD' });
  res.writeHead(200, {
    'content-type': asset.type,
    'content-length': asset.body.length,
    'cache-control': 'no-cache',
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  });
  res.end(asset.body);
}
