/**
 * Where the relay listens and keeps its key unless told: in a module of its
 * own so the command lines (options.ts) show them without loading libp2p.
 */
export const DEFAULT_RELAY_HOST = '127.0.0.1'
export const DEFAULT_RELAY_PORT = 9090
export const DEFAULT_RELAY_KEY_FILE = '.data/relay.key'
/** `npm start`'s web app (the agent's --app points here by default). */
export const DEFAULT_APP_PORT = 8080
