/** The version of tool-map; a test keeps it equal to package.json's. */
export const TOOL_MAP_VERSION = "0.1.0"
