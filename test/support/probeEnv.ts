/**
 * The variables every probe is given on top of the parent's allow-listed ones, spelled out here
 * (not imported from the source) so that a constant dropped or changed there fails the tests.
 */
export const EXPECTED_PROBE_CONSTANTS = {
  NO_COLOR: "1",
  NO_UPDATE_NOTIFIER: "1",
  npm_config_update_notifier: "false",
  GH_NO_UPDATE_NOTIFIER: "1",
  CHECKPOINT_DISABLE: "1",
  KUBECONFIG: "/dev/null",
  COREPACK_ENABLE_NETWORK: "0",
  COREPACK_ENABLE_AUTO_PIN: "0",
  npm_config_offline: "true",
  MISE_OFFLINE: "1"
} as const
