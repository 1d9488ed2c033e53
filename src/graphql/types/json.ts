import { GraphQLError, Kind, valueFromASTUntyped } from 'graphql';
import { builder } from '../builder.ts';

/** Any JSON value (e.g. aiDetailedDescription, a JSON array); the core validates its content. */
export const JsonRef = builder.scalarType('JSON', {
  description: 'Any JSON value.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast, variables) => {
    if (ast.kind === Kind.VARIABLE && !variables) throw new GraphQLError('JSON variable without variables');
    return valueFromASTUntyped(ast, variables);
  },
});
