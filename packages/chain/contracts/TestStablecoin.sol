// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title A test stablecoin (6 decimals, like USDT and USDC) with an open faucet.
/// @notice Deployed only on the embedded (local) chain, twice: as USDT and as USDC. Worthless by design.
contract TestStablecoin is ERC20 {
    /// @dev At most 10,000 whole units (6 decimals) per faucet call.
    uint256 public constant FAUCET_LIMIT = 10_000e6;

    error FaucetLimit();

    constructor(string memory name_, string memory symbol_) ERC20(name_, symbol_) {}

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// @notice Mints `amount` base units to `to`; open to anyone (a test chain only).
    function faucet(address to, uint256 amount) external {
        if (amount > FAUCET_LIMIT) revert FaucetLimit();
        _mint(to, amount);
    }
}
