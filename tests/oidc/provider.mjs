// A real OpenID Connect provider for the identity tests: panva's oidc-provider, configured from
// the JSON file named by argv[2]:
//   { "issuer": "http://127.0.0.1:PORT", "port": PORT, "keys": [private JWKs, the first signs],
//     "clients": [{ "client_id": ..., "client_secret": ..., "ttl_s": N }], "audience": "..." }
// Each client gets tokens by the client_credentials grant (no browser): a JWT access token for
// the requested resource (default: the audience) whose `sub` is the client's id, so two clients
// are two signed-in players. Prints "ready" once it listens.
import { readFileSync } from "node:fs";
import Provider from "oidc-provider";

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
const ttls = Object.fromEntries(config.clients.map((c) => [c.client_id, c.ttl_s ?? 300]));

const provider = new Provider(config.issuer, {
  clients: config.clients.map((c) => ({
    client_id: c.client_id,
    client_secret: c.client_secret,
    grant_types: ["client_credentials"],
    redirect_uris: [],
    response_types: [],
    token_endpoint_auth_method: "client_secret_post",
  })),
  jwks: { keys: config.keys },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
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
