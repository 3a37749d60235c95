// The usage read, joined to the templates of the plan: each replica's claim (`<template>-<set>-<ordinal>`) with what
// Prometheus says of it, its percent full over the kubelet's capacity, its inodes and its days to full. Pure.
import type { SizeSourceConfig } from '../domain/config.ts';
import { mapsClass } from '../domain/size-sources.ts';
import type { ClaimUsage, ReplicaUsage, TemplateRef, TemplateUsage } from '../domain/volume-usage.ts';
import { pvcName, type StatefulSetPlan, type TemplatePlan } from '../engine/plan/plan.ts';
import { claimKey } from './read-volume-usage.ts';

export function replicaUsageOf(claim: string, ordinal: number, usage: ClaimUsage): ReplicaUsage {
  const { usedBytes, capacityBytes, inodesUsed, inodes, bytesPerDay } = usage;
  // Fields set one by one, absent when unknown (thousands of replicas a pass: no spread of temporary objects).
  const replica: ReplicaUsage = { claim, ordinal, usedBytes, capacityBytes, usedPercent: (usedBytes / capacityBytes) * 100 };
  if (inodesUsed !== undefined && inodes !== undefined) {
    replica.inodesUsed = inodesUsed;
    replica.inodes = inodes;
    replica.inodesPercent = (inodesUsed / inodes) * 100;
  }
  if (bytesPerDay !== undefined) {
    replica.bytesPerDay = bytesPerDay;
    if (bytesPerDay > 0) replica.daysToFull = Math.max(0, capacityBytes - usedBytes) / bytesPerDay;
  }
  return replica;
}

/** The replicas of a live template with their usage; those without series are listed as unread. */
export function templateUsageOf(sts: StatefulSetPlan, template: TemplatePlan, claims: ReadonlyMap<string, ClaimUsage>): TemplateUsage {
  const replicas: ReplicaUsage[] = [];
  const unread: string[] = [];
  for (let ordinal = 0; ordinal < (sts.live?.replicas ?? 0); ordinal++) {
    const claim = pvcName(template.templateName, sts.name, ordinal);
    const usage = claims.get(claimKey(sts.namespace, claim));
    if (usage) replicas.push(replicaUsageOf(claim, ordinal, usage));
    else unread.push(claim);
  }
  return { namespace: sts.namespace, statefulSet: sts.name, template: template.templateName, replicas, unread };
}

/** The size source that maps this template's size, if one does. */
export function sizeSourceOf(sts: StatefulSetPlan, template: TemplatePlan): SizeSourceConfig | undefined {
  return sts.desired.sizedBy?.find((s) => s.template === template.templateName && !mapsClass(s));
}

/** Which template, and where its size is written in Git (what a proposal edits). */
export function templateRefOf(sts: StatefulSetPlan, template: TemplatePlan): TemplateRef {
  const source = sizeSourceOf(sts, template);
  return {
    namespace: sts.namespace, statefulSet: sts.name, template: template.templateName, storageLocation: template.desired.storageLocation,
    ...(source ? { sizeSource: { file: source.file, path: source.path } } : {}),
  };
}
