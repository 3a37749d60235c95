// The maximum volume size a CSI driver states when it refuses an expansion, read from its own words (a claim's
// ControllerResizeError / NodeResizeError condition, a VolumeResizeFailed Event). Only a text there is evidence of is
// recognised, since a number misread as a maximum would block changes that can succeed, or propose sizes that cannot:
//
// - csi-driver-host-path (controllerserver.go, `--max-volume-size`), recorded behind the real external-resizer v2.0.0 in
//   ../shared/conformance/csi-v1.34.9/b/: "rpc error: code = OutOfRange desc = Requested capacity 107374182400 exceeds
//   maximum allowed 53687091200"; the same words from metal-stack's csi-driver-lvm (github.com/metal-stack/csi-driver-lvm
//   issue 52: "Requested capacity 1099511627776 exceeds maximum allowed 1099511627776") and in apecloud/kubeblocks
//   issue 3163 (hostpath again). Both numbers are bytes (`%d` of int64 in the driver).
//
// Refusals that name no maximum say nothing here: Alibaba Cloud's disk plugin ("The specified parameter "NewSize" is
// not valid", gardener/pvc-autoscaler issue 293), Azure Disk's caching limit (azuredisk-csi-driver issue 3072). Pure.

/** A maximum the driver stated: its bytes, the size it refused, and the sentence it was said in, verbatim. */
export interface StatedMaximum {
  bytes: bigint;
  requested: bigint;
  /** The whole text the driver said it in (a condition's message or an Event's), as written. */
  words: string;
}

const hostpathForm = /\bRequested capacity (\d{1,30}) exceeds maximum allowed (\d{1,30})\b/;

/** The maximum one text states, if it is in a form the driver is known to write. */
export function statedMaximumIn(text: string): StatedMaximum | undefined {
  const match = hostpathForm.exec(text);
  if (!match?.[1] || !match[2]) return undefined;
  return { bytes: BigInt(match[2]), requested: BigInt(match[1]), words: text };
}

/** The smallest maximum any of `texts` states (one driver's words about one claim or template), if any does. */
export function smallestStatedMaximum(texts: readonly string[]): StatedMaximum | undefined {
  let smallest: StatedMaximum | undefined;
  for (const text of texts) {
    const stated = statedMaximumIn(text);
    if (stated && (smallest === undefined || stated.bytes < smallest.bytes)) smallest = stated;
  }
  return smallest;
}
