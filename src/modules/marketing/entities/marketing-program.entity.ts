import { Entity } from 'typeorm';
import { PlanEntity } from './plan.entity.js';

@Entity('marketing_programs')
export class MarketingProgram extends PlanEntity {}
