// A real OpenID Connect provider for the identity tests: panva's oidc-provider, configured from
// the JSON file named by argv[2]:
//   { "issuer": "http://127.0.0.1:PORT", "port": PORT, "keys": [private JWKs, the first signs],
//     "clients": [{ "client_id": ..., "client_secret": ..., "ttl_s": N }], "audience": "...",
//     "web_clients": [{ "client_id": ..., "redirect_uri": ..., "ttl_s": N }],
//     "accounts": { "<login>": { "name": "..." } } }
// Each client gets tokens by the client_credentials grant (no browser): a JWT access token for
// the requested resource (default: the audience) whose `sub` is the client's id, so two clients
// are two signed-in players.
// Each web client (optional) is a browser's public client: the authorization code flow with PKCE
// (required), no secret, its redirect URI's origin allowed by CORS, and a refresh token with
// every code. Its sign-in pages are oidc-provider's development interactions: a login form
// that takes any login name (the `sub`) and any password, then a consent page ("Continue").
// Its ID tokens carry `name` (from "accounts", where the login is listed) and
// `preferred_username` (the login); its access tokens are JWTs for the audience, like the
// clients'. Prints "ready" once it listens.
import { readFileSync } from "node:fs";
import Provider from "oidc-provider";

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
const webClients = config.web_clients ?? [];
const accounts = config.accounts ?? {};
const ttls = Object.fromEntries([...config.clients, ...webClients].map((c) => [c.client_id, c.ttl_s ?? 300]));
const webClientIds = new Set(webClients.map((c) => c.client_id));

const provider = new Provider(config.issuer, {
  clients: [
    ...config.clients.map((c) => ({
      client_id: c.client_id,
      client_secret: c.client_secret,
      grant_types: ["client_credentials"],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: "client_secret_post",
    })),
    ...webClients.map((c) => ({
      client_id: c.client_id,
      application_type: "web",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      redirect_uris: [c.redirect_uri],
      post_logout_redirect_uris: [c.redirect_uri],
      token_endpoint_auth_method: "none",
    })),
  ],
  jwks: { keys: config.keys },
  async findAccount(ctx, sub) {
    return {
      accountId: sub,
      async claims() {
        const name = accounts[sub]?.name;
        return { sub, preferred_username: sub, ...(name ? { name } : {}) };
      },
    };
  },
  claims: { openid: ["sub"], profile: ["name", "preferred_username"] },
  conformIdTokenClaims: false,
  pkce: { required: () => true },
  clientBasedCORS(ctx, origin, client) {
    return client.redirectUris.some((uri) => new URL(uri).origin === origin);
  },
  issueRefreshToken: async (ctx, client) => webClientIds.has(client.clientId) && client.grantTypeAllowed("refresh_token"),
  features: {
    devInteractions: { enabled: webClients.length > 0 },
    clientCredentials: { enabled: true },
    rpInitiatedLogout: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => config.audience,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, resource, client) => ({
        scope: "play",
        audience: resource,
        accessTokenFormat: "jwt",
        accessTokenTTL: ttls[client.clientId],
        jwt: { sign: { alg: "RS256" } },
      }),
    },
  },
});
provider.proxy = false;

const server = provider.listen(config.port, "127.0.0.1", () => {
  process.stdout.write("ready\n");
});
const stop = () => server.close(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
