import { Layer } from "effect"
import { Bundle } from "../inventory/bundle/Bundle.js"
import { BundleWriter } from "../inventory/bundle/BundleWriter.js"
import { InventoryReader } from "../inventory/query/InventoryReader.js"

/** The bundle's reader and writer: what a query of an existing bundle uses. */
export const BundleServicesLayer = Layer.merge(Bundle.layer, BundleWriter.layer)

/**
 * InventoryReader over the bundle's services (which stay in the output), needing the platform's
 * FileSystem, the MachineEnvironment and a FirstScan: the graph of the everyday commands, which
 * does not hold the scan (CoreLayer's graphs add it).
 */
export const ReadLayer = InventoryReader.layer.pipe(Layer.provideMerge(BundleServicesLayer))
