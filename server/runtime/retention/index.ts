/** The face of runtime/retention: the sweep and what admins see and change of it. See README.md. */
export { retentionService, type RetentionService, type RetentionView } from "./service";
export { sweepRetention, type RetentionSettings, type SweepDeps, type TenantSweep } from "./sweep";
