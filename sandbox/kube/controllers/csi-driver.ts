// The simulated CSI driver's RPCs, answered as csi-driver-host-path v1.17.1 answers them (pkg/hostpath
// controllerserver.go, nodeserver.go) for a driver profile: its gRPC codes and descriptions, which the sidecars quote.
// Which codes the sidecars treat as final or infeasible is theirs (external-resizer v2.0.0 pkg/util, the
// external-provisioner's sig-storage-lib-external-provisioner v13).
import type { DriverProfile } from './world.ts';

export type RpcCode = 'InvalidArgument' | 'OutOfRange' | 'NotFound' | 'Internal' | 'Unavailable' | 'Aborted' | 'ResourceExhausted' | 'DeadlineExceeded' | 'Canceled';

export interface RpcError {
  code: RpcCode;
  desc: string;
}

/** How grpc-go prints an error status: the text every sidecar quotes. */
export function rpcErrorText(error: RpcError): string {
  return `rpc error: code = ${error.code} desc = ${error.desc}`;
}

/** external-resizer util.IsFinalError: the operation is certainly not in progress (anything but these codes). */
export function isFinalError(error: RpcError): boolean {
  return !['Canceled', 'DeadlineExceeded', 'Unavailable', 'ResourceExhausted', 'Aborted'].includes(error.code);
}

/** external-resizer util.IsInfeasibleError: retried only slowly, and only for another size. */
export function isInfeasibleResizeError(error: RpcError): boolean {
  return ['InvalidArgument', 'OutOfRange', 'NotFound'].includes(error.code);
}

/** The external-provisioner's isInfeasibleError: "Retries will be delayed". */
export function isInfeasibleProvisioningError(error: RpcError): boolean {
  return error.code === 'InvalidArgument';
}

/**
 * validateVolumeMutableParameters: every parameter must be one the driver accepts (all, when it names none). Go prints
 * the unsupported names as `[a b]` in map order; the sandbox sorts them so its answer is deterministic.
 */
function validateMutableParameters(driver: DriverProfile, parameters: Readonly<Record<string, string>>): RpcError | undefined {
  if (driver.acceptedMutableParameterNames.length === 0) return undefined;
  const unsupported = Object.keys(parameters).filter((name) => !driver.acceptedMutableParameterNames.includes(name)).sort();
  return unsupported.length === 0 ? undefined : { code: 'InvalidArgument', desc: `invalid parameters: [${unsupported.join(' ')}]` };
}

function beyondMaximum(driver: DriverProfile, bytes: bigint): RpcError | undefined {
  if (driver.maxVolumeBytes === undefined || bytes <= driver.maxVolumeBytes) return undefined;
  return { code: 'OutOfRange', desc: `Requested capacity ${bytes} exceeds maximum allowed ${driver.maxVolumeBytes}` };
}

/** CreateVolume: the class's mutable parameters are checked first, then the size. */
export function createVolume(driver: DriverProfile, bytes: bigint, mutableParameters: Readonly<Record<string, string>> | undefined): RpcError | undefined {
  return (mutableParameters === undefined ? undefined : validateMutableParameters(driver, mutableParameters)) ?? beyondMaximum(driver, bytes);
}

export type ExpandAnswer = { error: RpcError } | { error?: undefined; nodeExpansionRequired: boolean };

/**
 * ControllerExpandVolume. A driver without the controller capability is expanded by the resizer's trivial resizer:
 * nothing is asked of the driver, and the node must do it all. `failsNow` plays a backend's passing failure.
 */
export function controllerExpandVolume(driver: DriverProfile, bytes: bigint, failsNow: boolean): ExpandAnswer {
  if (driver.expansion === 'node-only') return { nodeExpansionRequired: true };
  if (failsNow) return { error: { code: 'Internal', desc: 'backend temporarily unavailable' } };
  const tooLarge = beyondMaximum(driver, bytes);
  if (tooLarge) return { error: tooLarge };
  return { nodeExpansionRequired: driver.expansion !== 'controller-only' };
}

/** NodeExpandVolume: only a node-only driver checks the size on the node (hostpath's --max-volume-expansion-size-node). */
export function nodeExpandVolume(driver: DriverProfile, bytes: bigint, failsNow: boolean): RpcError | undefined {
  if (failsNow) return { code: 'Internal', desc: 'resize2fs temporarily failed' };
  return driver.expansion === 'node-only' ? beyondMaximum(driver, bytes) : undefined;
}

/** ControllerModifyVolume with a VolumeAttributesClass's parameters. */
export function controllerModifyVolume(driver: DriverProfile, parameters: Readonly<Record<string, string>>): RpcError | undefined {
  if (Object.keys(parameters).length === 0) return { code: 'InvalidArgument', desc: 'Mutable parameters cannot be empty' };
  return validateMutableParameters(driver, parameters);
}
