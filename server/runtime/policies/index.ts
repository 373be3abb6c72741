export { grantFor, grantOffer, GrantRequest, grantService, type GrantService, type GrantSnapshot, type StandingApproval } from "./grants";
