// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @title Fixed-price sale of the platform token for USDT or USDC.
/// @notice `price` is in stablecoin base units (6 decimals) per whole token (1e18 base units):
///         0.002 USDT per token is 2000. The sale sells from the tokens it holds (the deployer transfers
///         its stock); the stablecoins paid stay here until the owner withdraws them.
contract TokenSale is Ownable {
    using SafeERC20 for IERC20;

    IERC20 public immutable token;
    /// @dev USDT is the default stablecoin of `buyTokens` (SafeERC20 copes with USDT's missing return value).
    IERC20 public immutable usdt;
    IERC20 public immutable usdc;
    /// @notice Stablecoin base units per whole token.
    uint256 public price;

    error InvalidAmount();
    error InvalidPrice();
    error UnsupportedStablecoin();
    error SoldOut();

    event TokensPurchased(address indexed buyer, address indexed stablecoin, uint256 paid, uint256 tokens);
    event PriceChanged(uint256 price);
    event Withdrawn(address stablecoin, address to, uint256 amount);

    constructor(address token_, address usdt_, address usdc_, uint256 price_) Ownable(msg.sender) {
        if (price_ == 0) revert InvalidPrice();
        token = IERC20(token_);
        usdt = IERC20(usdt_);
        usdc = IERC20(usdc_);
        price = price_;
    }

    /// @notice Token base units bought by `amount` stablecoin base units at the current price (rounded down).
    function tokensFor(uint256 amount) public view returns (uint256) {
        return (amount * 1e18) / price;
    }

    /// @notice Pays `amount` USDT base units (approve this contract first) for `tokensFor(amount)` tokens.
    function buyTokens(uint256 amount) external {
        _buy(usdt, amount);
    }

    /// @notice Same as `buyTokens` with USDT or USDC.
    function buyTokensWith(address stablecoin, uint256 amount) external {
        _buy(_supported(stablecoin), amount);
    }

    function setPrice(uint256 newPrice) external onlyOwner {
        if (newPrice == 0) revert InvalidPrice();
        price = newPrice;
        emit PriceChanged(newPrice);
    }

    function withdrawUSDT(address to, uint256 amount) external onlyOwner {
        _withdraw(usdt, to, amount);
    }

    function withdrawStablecoin(address stablecoin, address to, uint256 amount) external onlyOwner {
        _withdraw(_supported(stablecoin), to, amount);
    }

    function _supported(address stablecoin) private view returns (IERC20) {
        // address(0) is never accepted, even if a deployment left USDC unset.
        if (stablecoin == address(0) || (stablecoin != address(usdt) && stablecoin != address(usdc))) {
            revert UnsupportedStablecoin();
        }
        return IERC20(stablecoin);
    }

    function _buy(IERC20 stablecoin, uint256 amount) private {
        uint256 tokens = tokensFor(amount);
        if (amount == 0 || tokens == 0) revert InvalidAmount();
        if (token.balanceOf(address(this)) < tokens) revert SoldOut();
        stablecoin.safeTransferFrom(msg.sender, address(this), amount);
        token.safeTransfer(msg.sender, tokens);
        emit TokensPurchased(msg.sender, address(stablecoin), amount, tokens);
    }

    function _withdraw(IERC20 stablecoin, address to, uint256 amount) private {
        stablecoin.safeTransfer(to, amount);
        emit Withdrawn(address(stablecoin), to, amount);
    }
}
