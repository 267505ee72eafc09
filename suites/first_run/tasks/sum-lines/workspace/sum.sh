#!/bin/sh
echo 0
