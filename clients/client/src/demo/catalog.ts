/**
 * The demo shop's test suite: spec files and test titles as a Playwright project of an online shop has
 * them, and the people and commit messages of its history. Data only; history.ts decides what happens.
 */

export interface DemoSpec {
  file: string;
  describe: string;
  tests: string[];
}

export const DEMO_SPECS: DemoSpec[] = [
  {
    file: 'tests/auth/login.spec.ts',
    describe: 'Login',
    tests: [
      'signs in with valid credentials',
      'shows an error for a wrong password',
      'locks the account after five failed attempts',
      'keeps the user signed in with "Remember me"',
      'signs out from the account menu',
      'redirects to the page asked for after sign-in',
      'resets a forgotten password by e-mail',
    ],
  },
  {
    file: 'tests/auth/signup.spec.ts',
    describe: 'Sign-up',
    tests: [
      'creates an account with an e-mail address',
      'refuses an e-mail that is already registered',
      'asks for a stronger password',
      'sends a confirmation e-mail',
      'accepts the terms before creating the account',
    ],
  },
  {
    file: 'tests/catalog/search.spec.ts',
    describe: 'Search',
    tests: [
      'finds products by name',
      'suggests products while typing',
      'filters results by price range',
      'sorts results by price, low to high',
      'shows a message when nothing matches',
      'keeps the query in the URL',
      'paginates long result lists',
      'filters by brand and size together',
    ],
  },
  {
    file: 'tests/catalog/product-page.spec.ts',
    describe: 'Product page',
    tests: [
      'shows price, stock and delivery estimate',
      'zooms the product image',
      'switches between colour variants',
      'adds a product to the wish list',
      'shows reviews with their average rating',
      'recommends related products',
    ],
  },
  {
    file: 'tests/cart/cart.spec.ts',
    describe: 'Cart',
    tests: [
      'adds a product to the cart',
      'updates the quantity of an item',
      'removes an item from the cart',
      'applies a 10% discount code',
      'refuses an expired discount code',
      'keeps the cart after signing in',
      'shows the free-shipping threshold',
      'computes the total with VAT',
    ],
  },
  {
    file: 'tests/checkout/checkout.spec.ts',
    describe: 'Checkout',
    tests: [
      'completes an order as a guest',
      'completes an order as a signed-in customer',
      'validates the shipping address',
      'offers express delivery',
      'shows the order confirmation',
      'sends the order confirmation e-mail',
      'keeps the entered address after a payment error',
    ],
  },
  {
    file: 'tests/checkout/payment.spec.ts',
    describe: 'Payment',
    tests: [
      'pays with a credit card',
      'pays with a saved card',
      'handles a declined card',
      'asks for 3-D Secure confirmation',
      'pays with a gift card',
      'pays with Apple Pay',
    ],
  },
  {
    file: 'tests/account/orders.spec.ts',
    describe: 'Order history',
    tests: [
      'lists past orders, newest first',
      'shows the details of an order',
      'downloads an invoice as PDF',
      'cancels an order before shipping',
      'starts a return for a delivered item',
      'tracks a shipment',
    ],
  },
  {
    file: 'tests/account/profile.spec.ts',
    describe: 'Profile',
    tests: [
      'changes the display name',
      'changes the e-mail address after confirmation',
      'adds a shipping address',
      'sets the default address',
      'deletes the account',
    ],
  },
  {
    file: 'tests/api/inventory.api.spec.ts',
    describe: 'Inventory API',
    tests: [
      'lists stock levels by warehouse',
      'reserves stock for a cart',
      'releases a reservation after 15 minutes',
      'refuses to reserve more than is in stock',
      'updates stock from a supplier feed',
      'answers 404 for an unknown product',
    ],
  },
];

export const DEMO_AUTHORS = [
  'Priya Natarajan <priya@shop.example>',
  'Tomás Ortega <tomas@shop.example>',
  'Mei Lin <mei@shop.example>',
  'Jonas Becker <jonas@shop.example>',
  'Amara Okafor <amara@shop.example>',
  'Sam Carter <sam@shop.example>',
];

export const DEMO_COMMIT_MESSAGES = [
  'Update product card spacing on mobile',
  'Add aria labels to the header navigation',
  'Bump @playwright/test to 1.49.1',
  'Cache category pages for five minutes',
  'Fix typo in the returns policy page',
  'Log payment provider latency',
  'Move shipping rates to the config service',
  'Show stock per size on the product page',
  'Extract the address form into a component',
  'Retry supplier feed downloads',
  'Translate checkout into German',
  'Reduce image sizes in the catalog',
  'Add a feature flag for the new footer',
  'Refactor order e-mails to templates',
  'Upgrade React to 19.0.0',
  'Make the discount banner dismissible',
];
