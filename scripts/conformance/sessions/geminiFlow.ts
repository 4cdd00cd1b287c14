/**
 * The gateway sessions' scripts for Gemini CLI: the same flow as gatewayFlow.ts, plus an answer
 * to its model router. With the default model (`auto`) Gemini CLI 0.61.0 first asks a flash-lite
 * model to classify the prompt (`generateJson`: `responseMimeType: application/json` with a
 * `responseJsonSchema`) and retries while the answer is not JSON; the router is answered with the
 * JSON its schema asks for (`model_choice`, or the numerical router's `complexity_score`), and
 * every other request goes to the common script.
 */
import type { ModelReply, ModelRequest, Script } from "../model/script.js"
import { scripts as common } from "./gatewayFlow.js"

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> => typeof value === "object" && value !== null && !Array.isArray(value)

/** The property names of the JSON schema a JSON-mode request asks for, or undefined for a plain request. */
const jsonSchemaProperties = (request: ModelRequest): ReadonlyArray<string> | undefined => {
  const config = isRecord(request.raw) ? request.raw["generationConfig"] : undefined
  if (!isRecord(config) || config["responseMimeType"] !== "application/json") return undefined
  const schema = config["responseJsonSchema"] ?? config["responseSchema"]
  return isRecord(schema) && isRecord(schema["properties"]) ? Object.keys(schema["properties"]) : []
}

/** The router's answer: the pro model (a multi-step task), which also sends the main turns to one model. */
const routerAnswer = (properties: ReadonlyArray<string>): ModelReply => ({
  _tag: "Text",
  text: JSON.stringify(
    properties.includes("complexity_score")
      ? { complexity_reasoning: "scripted session", complexity_score: 95 }
      : properties.includes("model_choice")
      ? { reasoning: "scripted session", model_choice: "pro" }
      : {}
  )
})

/** The prefix of the final text when the script cannot go on (a tool it needs is not offered). */
export const STUCK_PREFIX = "scripted model stuck: "

/**
 * A script that cannot go on ends the session with a text saying why. Thrown, it would be a 500,
 * which Gemini CLI retries after a backoff of seconds: long enough for its late re-list to land,
 * so the retried request would hide what the first one lacked.
 */
const withRouter = (script: Script): Script => (request) => {
  const properties = jsonSchemaProperties(request)
  if (properties !== undefined) return routerAnswer(properties)
  try {
    return script(request)
  } catch (error) {
    return { _tag: "Text", text: `${STUCK_PREFIX}${error instanceof Error ? error.message : String(error)}` }
  }
}

export const scripts: Readonly<Record<string, Script>> = Object.fromEntries(
  Object.entries(common).map(([name, script]) => [name, withRouter(script)])
)
