// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

interface ITokenSalePrice {
    function price() external view returns (uint256);
}

/// @title Bot plan payments in the platform token, paid straight into the rewards pool.
/// @notice Plans are priced in USD cents (1 Basic 500, 2 Advanced 1500, 3 Professional 3000) and charged in
///         tokens at the sale's current price. `ref` is a per-user reference given by the server, so the
///         server maps a payment to its user without any wallet link.
contract PlanPayments is Ownable {
    using SafeERC20 for IERC20;

    IERC20 public immutable token;
    ITokenSalePrice public immutable sale;
    /// @dev The EarningsPool: every payment adds to its rewards reserve.
    address public immutable pool;

    error UnknownPlan();

    event PlanPaid(address indexed payer, uint8 indexed plan, bytes32 indexed ref, uint256 tokens, uint256 usdCents);

    constructor(address token_, address sale_, address pool_) Ownable(msg.sender) {
        token = IERC20(token_);
        sale = ITokenSalePrice(sale_);
        pool = pool_;
    }

    /// @notice Price of `plan` in USD cents.
    function planUsdCents(uint8 plan) public pure returns (uint256) {
        if (plan == 1) return 500;
        if (plan == 2) return 1_500;
        if (plan == 3) return 3_000;
        revert UnknownPlan();
    }

    /// @notice Price of `plan` in token base units: cents * 1e4 is the price in stablecoin base units
    ///         (6 decimals), divided by the sale price (stablecoin base units per whole token).
    function priceInTokens(uint8 plan) public view returns (uint256) {
        return (planUsdCents(plan) * 1e4 * 1e18) / sale.price();
    }

    /// @notice Pays `plan` (approve this contract for `priceInTokens(plan)` first); the tokens go to the pool.
    function payPlan(uint8 plan, bytes32 ref) external {
        uint256 cents = planUsdCents(plan);
        uint256 tokens = priceInTokens(plan);
        token.safeTransferFrom(msg.sender, pool, tokens);
        emit PlanPaid(msg.sender, plan, ref, tokens, cents);
    }
}
