/** The face of runtime/policies: standing approvals that outlive one pause. See README.md. */
export { grantFor, grantOffer, GrantRequest, grantService, type GrantService, type GrantSnapshot, type StandingApproval } from "./grants";
export { budgetService, type BudgetDefaults, type BudgetService } from "./budgets";
