export { type ContractContext, type ContractHarness, createContractHarness } from './contract-context.js';
export { type OutputStoreFactory, runOutputStoreContract } from './output-store-contract.js';
