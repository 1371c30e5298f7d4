/**
 * Configuration from environment variables, validated in full at start-up. A service declares a
 * spec (`{ GRPC_PORT: port(50051), DATABASE_URL: url(...) }`) and gets a typed object, or a
 * ConfigError that lists every missing or malformed variable by name.
 */
export { loadConfig, loadConfigOrExit, ConfigError, type ConfigSpec, type ConfigOf, type ConfigCheck } from './load-config.js';
export { str, int, port, bool, url, oneOf, hostPort, optional, doc, type VarSpec } from './var-specs.js';
export { watchSecretFile, type SecretFile, type SecretFileOptions } from './secret-file.js';
