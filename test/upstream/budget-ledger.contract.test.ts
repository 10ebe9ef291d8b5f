import { describeEngines } from '../support/engines';
import { budgetLedgerContract } from './budget-ledger.contract';

describeEngines('BudgetLedger', budgetLedgerContract);
