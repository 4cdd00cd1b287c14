/**
 * The words a catalog answer uses for the catalog's own commands. The texts are written once
 * (`entryTools.ts`, `router/routerTools.ts`); each front end passes its words: an agent calls
 * the entry tools, a person types `tool-map catalog …`.
 */

/**
 * How a front end names the catalog's own commands in its answers.
 */
export interface Wording {
  /** How to list the root. */
  readonly browse: string
  /** How to search every tool with words. */
  readonly search: string
  /** How to load a target. */
  readonly load: string
  /** How to find and load in one step, where the front end can. */
  readonly route?: string | undefined
  /** When a loaded tool can be called. */
  readonly callable: string
}

/** The words of the entry tools, for agents (the default). */
export const AGENT_WORDING: Wording = {
  browse: "tools_ls(\"/\")",
  search: "tools_ls with a query",
  load: "tools_load",
  route: "tools_route",
  callable: "callable from your next step"
}

/** The words of the `tool-map catalog` commands, for the CLI. */
export const CLI_WORDING: Wording = {
  browse: "`tool-map catalog ls /`",
  search: "`tool-map catalog ls --query WORDS`",
  load: "`tool-map catalog load TARGET`",
  callable: "callable from the agent's next step"
}
