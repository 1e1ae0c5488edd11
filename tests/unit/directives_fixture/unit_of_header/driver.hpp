/* Fixture: reaches solver.hpp for main.cpp, one include deeper. */
#pragma once
#include <iostream>
#include "vec.hpp"
#include "solver.hpp"
