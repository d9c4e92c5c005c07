// Launcher of the oidc-provider authorization server that hookflow's OAuth
// tests run against (see package oidctest). Test use only: it logs in and
// consents for every user without asking.
//
// Usage: node provider.mjs <config.json>
//
// The configuration (written by oidctest.Start) holds:
//   modules      directory whose node_modules holds oidc-provider
//   issuer       the issuer identifier (the URL of oidctest's proxy)
//   jwks         the private signing keys; the first one signs
//   clients      client metadata, as oidc-provider takes it
//   introspectors  client IDs allowed to call the introspection endpoint
//   resources    resource servers by URL path: {scope, format, alg, ttl}
//   subject      the account logged in when the request has no login_hint
//   claims       claims added to an account's access tokens, by subject
//
// A resource indicator names a resource server when it is an http URL on
// 127.0.0.1 whose path is a key of resources; its port does not matter, so
// that tests may serve the resource on any free port. Anything else is an
// invalid_target.
//
// Once listening on a free loopback port it prints {"port": N} on one line
// of stdout. It stops on SIGTERM or when stdin closes.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const require = createRequire(`${cfg.modules}/`);
const { Provider, errors } = await import(pathToFileURL(require.resolve('oidc-provider')).href);

function resourceServer(indicator) {
  let u;
  try {
    u = new URL(indicator);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' || u.hostname !== '127.0.0.1' || u.search || u.hash) return undefined;
  return Object.hasOwn(cfg.resources, u.pathname) ? cfg.resources[u.pathname] : undefined;
}

const provider = new Provider(cfg.issuer, {
  jwks: cfg.jwks,
  clients: cfg.clients,
  // ID tokens are signed like everything else, with the first key.
  clientDefaults: { id_token_signed_response_alg: cfg.jwks.keys[0].alg },
  // Keys for the interaction and session cookies; any fixed value will do
  // for a server that lives as long as one test.
  cookies: { keys: ['oidctest-cookie-key'] },
  pkce: { required: () => true },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: {
      enabled: true,
      allowedPolicy: async (_ctx, client) => cfg.introspectors.includes(client.clientId),
    },
    resourceIndicators: {
      enabled: true,
      defaultResource: async (_ctx, _client, oneOf) => oneOf,
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx, indicator) => {
        const rs = resourceServer(indicator);
        if (!rs) throw new errors.InvalidTarget();
        const info = { scope: rs.scope, accessTokenFormat: rs.format, accessTokenTTL: rs.ttl };
        if (rs.format === 'jwt') info.jwt = { sign: { alg: rs.alg } };
        return info;
      },
    },
  },
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
  extraTokenClaims: async (_ctx, token) => (token.accountId && cfg.claims ? cfg.claims[token.accountId] : undefined),
});

// The interactions: log in as the login_hint (or the configured subject),
// and consent to everything the client asked for.
provider.use(async (ctx, next) => {
  if (ctx.method !== 'GET' || !/^\/interaction\/[^/]+$/.test(ctx.path)) return next();
  const details = await provider.interactionDetails(ctx.req, ctx.res);
  const { prompt, params, session } = details;
  if (prompt.name === 'login') {
    const accountId = params.login_hint || cfg.subject;
    return provider.interactionFinished(ctx.req, ctx.res, { login: { accountId } }, { mergeWithLastSubmission: false });
  }
  if (prompt.name !== 'consent') {
    ctx.throw(400, `oidctest: unexpected prompt ${prompt.name}`);
  }
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
  if (prompt.details.missingOIDCScope) grant.addOIDCScope(prompt.details.missingOIDCScope.join(' '));
  if (prompt.details.missingOIDCClaims) grant.addOIDCClaims(prompt.details.missingOIDCClaims);
  for (const [indicator, scope] of Object.entries(prompt.details.missingResourceScopes || {})) {
    grant.addResourceScope(indicator, scope.join(' '));
  }
  const grantId = await grant.save();
  const consent = details.grantId ? {} : { grantId };
  return provider.interactionFinished(ctx.req, ctx.res, { consent }, { mergeWithLastSubmission: true });
});

const server = provider.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
